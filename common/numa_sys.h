/* numa_sys.h: the system libnuma header, for common/numa.c only.
 *
 * common/numa.h shadows <numa.h> because the build puts -Icommon on the
 * include path, and -I directories are searched for <...> includes too.
 * Included as <numa_sys.h> (so that it is found through -Icommon), this
 * header continues the search after common/ and reaches the real
 * libnuma header. */
#include_next <numa.h>
