// mmap with MAP_FIXED of a new file over a 2 MiB mapping of an old file, while the old file is
// truncated: the old VMA must leave i_mmap before its tables are freed (the truncation walks
// it until then), and the tables must be freed before the new VMA's driver fills the range
// again, or the new VMA loses the tables it just got.
#include "verify/scenarios/mmap_fixed_world.hpp"

struct mmap_fixed_vs_truncate : mmap_fixed_against_truncate<mmap_fixed_vs_truncate> {
  static constexpr bool kMmapFileFails = false;
};

VMAVERIFY_TEARDOWN_SCENARIO(mmap_fixed_vs_truncate, "mmap_fixed_vs_truncate",
                            "abstract rw_semaphore: mmap MAP_FIXED of a new file over a 2 MiB mapping of another "
                            "(__mmap_region: vms_clean_up_area frees the old tables, the driver fills them again) "
                            "against truncation of the old file",
                            "full");
