# common/: the shared layer, built as one static library.
COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)

$(LIBMB): $(COMMON_OBJ)
	$(AR) rcs $@ $^
