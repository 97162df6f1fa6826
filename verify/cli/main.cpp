// vmaverify: model-checked verification of batched unlink_file_vma and i_mmap_rwsem.
#include "verify/cli/cli.hpp"

int main(int argc, char** argv) { return run_command_line(argc, argv); }
