// How long each check of `vmaverify all` took the last time it ran from this build directory
// (all-durations.tsv there), so that all's "about N s left" counts what is still to come: the
// kernel group and the proofs take a minute or more each, most checks a fraction of a second,
// and an average over the checks done so far says "0 s left" for the last minutes.
#pragma once
#include <map>
#include <string>
#include <vector>

class CheckDurations {
 public:
  // Reads the file if it is there (a missing or malformed one is no durations, not an error).
  explicit CheckDurations(std::string path);
  void finished(const std::string& id, double seconds);
  // The seconds the selected checks not finished yet should take on `jobs` processes: each its
  // last duration, or for a check never timed the mean of those that are.
  double left(const std::vector<std::string>& selected, int jobs) const;
  // Writes the last duration of every check ever timed (this run's replacing older ones), whole
  // or not at all; false with why.
  bool save(std::string* why) const;

 private:
  std::string path_;
  std::map<std::string, double> last_, now_;
};

// The file beside the build's other state (the kernel checker cache).
std::string default_check_durations_file();
