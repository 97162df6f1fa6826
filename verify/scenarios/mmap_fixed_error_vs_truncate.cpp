// mmap with MAP_FIXED of a new file over a 2 MiB mapping of an old file whose driver fills the
// range's page tables and then fails, while the old file is truncated: the error path frees
// the tables the driver filled (unmap_region of the new VMA, never linked) and the old VMA,
// already out of i_mmap and without tables, must not come back: the range becomes a gap.
#include "verify/scenarios/mmap_fixed_world.hpp"

struct mmap_fixed_error_vs_truncate : mmap_fixed_against_truncate<mmap_fixed_error_vs_truncate> {
  static constexpr bool kMmapFileFails = true;
};

VMAVERIFY_TEARDOWN_SCENARIO(mmap_fixed_error_vs_truncate, "mmap_fixed_error_vs_truncate",
                            "abstract rw_semaphore: mmap MAP_FIXED over a 2 MiB file mapping whose driver fills "
                            "the range's tables and then fails (unmap_and_free_file_vma, vms_abort_munmap_vmas) "
                            "against truncation of the old file",
                            "full");
