// One state of the unlink_vma_file_batch, as the exploration reaches it and as the Z3
// specs see it. Plain data, fixed size: it is recorded inside Relacy iterations.
#pragma once

constexpr int BATCH_SLOTS = 8;       // ARRAY_SIZE(vb->vmas)
constexpr int SNAPSHOT_MAX_VMAS = 16;
constexpr int SNAPSHOT_MAX_FILES = 8;

struct BatchSnapshot {
  int count = 0;                          // vb->count
  int vmas[BATCH_SLOTS] = {};             // vb->vmas[i] as VMA ids (index in the layout), -1 when unused
  int nvmas = 0;                          // VMAs in the layout being torn down
  int vm_file[SNAPSHOT_MAX_VMAS] = {};    // VMA id -> file id, 0 = anonymous (vm_file == NULL)
  int f_mapping[SNAPSHOT_MAX_FILES] = {}; // file id -> mapping id (functional: two files may share one)
  int added[SNAPSHOT_MAX_VMAS] = {};      // times add appended each VMA to vmas[] so far (anonymous ones: never)
  int removed[SNAPSHOT_MAX_VMAS] = {};    // times each VMA was removed from its mapping's i_mmap so far
  int lock_round_trips = 0;               // i_mmap_lock_write acquisitions made by the batch so far
  bool finalized = false;                 // unlink_file_vma_batch_final has returned (and nothing appended since)
  // Ghost numbering for the removal_order spec, filled by the model as the kernel code runs:
  // appending vma to vmas[] does ++appends, append_seq[vma] = appends; each
  // __remove_shared_vm_struct(vma) does ++removals, remove_seq[vma] = removals.
  int appends = 0;                        // VMAs appended to vmas[] so far (anonymous ones never are)
  int append_seq[SNAPSHOT_MAX_VMAS] = {}; // VMA id -> appends right after it was appended (1-based), 0 if never
  int removals = 0;                       // removals made by the batch so far
  int remove_seq[SNAPSHOT_MAX_VMAS] = {}; // VMA id -> removals right after its latest removal (1-based), 0 if never
};
