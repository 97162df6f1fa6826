#include "verify/report/safe_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace {

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string unusable_output_dir(const std::string& option, const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 && mkdir(dir.c_str(), 0777) != 0)
    return option + " " + dir + ": cannot create directory: " + std::strerror(errno);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return option + " " + dir + ": not a directory";
  if (access(dir.c_str(), W_OK | X_OK) != 0) return option + " " + dir + ": not writable";
  return "";
}

std::string unwritable_path(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return path + ": is a directory";
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return path + ": exists and is not a regular file (a link or a device): not replaced";
  const std::string dir = parent_of(path);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return path + ": cannot write: no such directory " + dir;
  if (access(dir.c_str(), W_OK | X_OK) != 0) return path + ": cannot write in " + dir + ": " + std::strerror(errno);
  return "";
}

bool write_file_safely(const std::string& path, const std::string& text, std::string* err, bool append) {
  const std::string problem = unwritable_path(path);
  if (!problem.empty()) {
    *err = problem;
    return false;
  }
  std::string whole;
  if (append) {  // what is there already, read without following a link (refused above)
    const int in = open(path.c_str(), O_RDONLY | O_NOFOLLOW);
    if (in >= 0) {
      char buf[65536];
      for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;) whole.append(buf, (size_t)n);
      close(in);
    }
  }
  whole += text;
  std::string tmp = path + ".XXXXXX";
  const int fd = mkstemp(&tmp[0]);
  if (fd < 0) {
    *err = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  int saved = 0;
  while (done < whole.size()) {
    const ssize_t n = write(fd, whole.data() + done, whole.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      saved = n < 0 ? errno : EIO;
      break;
    }
    done += (size_t)n;
  }
  if (!saved && fsync(fd) != 0 && errno != EINVAL) saved = errno;
  if (close(fd) != 0 && !saved) saved = errno;
  if (!saved && fchmodat(AT_FDCWD, tmp.c_str(), 0644, 0) != 0) saved = errno;
  if (!saved && rename(tmp.c_str(), path.c_str()) != 0) saved = errno;
  if (saved) {
    unlink(tmp.c_str());
    *err = path + ": cannot write: " + std::strerror(saved);
    return false;
  }
  return true;
}

bool make_real_directory(const std::string& dir, const std::string& sub, std::string* err) {
  std::string at = dir;
  size_t from = 0;
  while (from <= sub.size()) {
    const size_t slash = sub.find('/', from);
    const std::string part = sub.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    from = slash == std::string::npos ? sub.size() + 1 : slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      *err = dir + "/" + sub + ": leaves " + dir;
      return false;
    }
    at += "/" + part;
    struct stat st;
    if (lstat(at.c_str(), &st) != 0 && mkdir(at.c_str(), 0777) != 0 && errno != EEXIST) {
      *err = at + ": cannot create directory: " + std::strerror(errno);
      return false;
    }
    if (lstat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      *err = at + ": not a directory of its own (a symbolic link?): nothing is written through it";
      return false;
    }
  }
  return true;
}

bool stdout_intact(std::string* err) {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  *err = std::string("cannot write standard output: ") + std::strerror(errno ? errno : EIO);
  return false;
}
