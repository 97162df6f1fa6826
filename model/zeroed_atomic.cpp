#include "model/zeroed_atomic.hpp"

namespace relacy_fix {

// The scenarios and test programs have 1 to 8 threads (Relacy sizes an atomic's records by the
// test's thread count, a template parameter).
void initial_record_unseen(rl::atomic_data* impl, rl::thread_id_t thread_count) {
  switch (thread_count) {
    case 1: return initial_record_unseen<1>(impl);
    case 2: return initial_record_unseen<2>(impl);
    case 3: return initial_record_unseen<3>(impl);
    case 4: return initial_record_unseen<4>(impl);
    case 5: return initial_record_unseen<5>(impl);
    case 6: return initial_record_unseen<6>(impl);
    case 7: return initial_record_unseen<7>(impl);
    case 8: return initial_record_unseen<8>(impl);
    default: rl::ctx().fail_test("zeroed_atomic: a test with more than 8 threads", rl::test_result_user_assert_failed, RL_INFO);
  }
}

}  // namespace relacy_fix
