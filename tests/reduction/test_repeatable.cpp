// A search's runs repeat the choices recorded for their prefix, or the search says so.
// A word that starts zeroed (model/zeroed_atomic.hpp) is explored as C++ allows, whatever its
// memory held before: Relacy's own zero-initialised atomic is not (the test shows its defect, so
// that it fails if Relacy fixes it and zeroed_atomic can go).
#include <gtest/gtest.h>
#include "tests/reduction/repeatable_programs.hpp"

TEST(Repeatable, AStaleReadOfTheZeroIsExploredWhateverTheSlotHeld) {
  const std::set<std::pair<int, int>> all = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  EXPECT_EQ(message_passing_outcomes(false), all);
}

TEST(Repeatable, RelacysOwnLosesTheStaleReadOverZeroedMemory) {
  const std::set<std::pair<int, int>> got = message_passing_outcomes(true);
  EXPECT_EQ(got.count({1, 0}), 0u) << "Relacy's zero-initialised atomic now completes its record";
  EXPECT_EQ(got.count({1, 1}), 1u);
}

// A run that makes other choices than the recorded path: the search stops with what differed.
TEST(Repeatable, ARunThatDoesNotRepeatItsChoicesStopsTheSearch) {
  std::string what;
  EXPECT_TRUE(nondeterminism_detected(&what)) << what;
  EXPECT_NE(what.find("options ("), std::string::npos) << what;
}
