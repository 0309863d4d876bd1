# Summary: common distribution defaults (the "before" state of a tuning comparison)
#
# Puts the knobs the tuned profile changes back to typical distribution
# values, for a clean "before" on a machine that was tuned by hand:
#   vm.swappiness 60, kernel.numa_balancing 1, thp madvise.
# Apply: memsuite profile apply default    Undo: memsuite profile restore default
vm.swappiness=60
kernel.numa_balancing=1
thp=madvise
