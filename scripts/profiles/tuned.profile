# Summary: the "after" OS profile for memory-bound work
#
# The tuning it applies (as evaluated on KeyarchOS with mencal 2.3-3):
#   vm.swappiness 60 -> 10     keep anonymous memory out of swap under pressure
#   kernel.numa_balancing 0    no automatic page migration during a run
#   thp always                 2 MiB pages for large buffers: fewer TLB misses
#                              (that evaluation saw the TLB miss rate fall 2.1% -> 1.4%)
#   glibc.tunables             larger per-thread malloc caches (less lock
#                              contention with many threads); passed to the
#                              benchmarks as GLIBC_TUNABLES
# Apply: memsuite profile apply tuned      Undo: memsuite profile restore tuned
# Compare: memsuite run --profile tuned --baseline
vm.swappiness=10
kernel.numa_balancing=0
thp=always
glibc.tunables=glibc.malloc.tcache_count=1024
