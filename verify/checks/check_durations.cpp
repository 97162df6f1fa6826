#include "verify/checks/check_durations.hpp"

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include "verify/build_id.hpp"

CheckDurations::CheckDurations(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.rfind('\t');
    if (tab == std::string::npos) continue;
    char* end = nullptr;
    const double s = std::strtod(line.c_str() + tab + 1, &end);
    if (end && *end == '\0' && s >= 0 && s < 1e7) last_[line.substr(0, tab)] = s;
  }
}

void CheckDurations::finished(const std::string& id, double seconds) { now_[id] = seconds; }

double CheckDurations::left(const std::vector<std::string>& selected, int jobs) const {
  double known = 0;
  int n = 0;
  for (const auto* m : {&now_, &last_})
    for (const auto& [id, s] : *m)
      if (m == &now_ || !now_.count(id)) known += s, n++;
  const double mean = n ? known / n : 0;
  double total = 0;
  for (const std::string& id : selected) {
    if (now_.count(id)) continue;
    const auto it = last_.find(id);
    total += it != last_.end() ? it->second : mean;
  }
  return total / (jobs > 0 ? jobs : 1);
}

bool CheckDurations::save(std::string* why) const {
  std::map<std::string, double> all = last_;
  for (const auto& [id, s] : now_) all[id] = s;
  const std::string tmp = path_ + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    for (const auto& [id, s] : all) out << id << '\t' << s << '\n';
    if (!out) {
      *why = tmp + ": " + std::strerror(errno);
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    *why = path_ + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

std::string default_check_durations_file() { return std::string(VMAVERIFY_BUILD_DIR) + "/all-durations.tsv"; }
