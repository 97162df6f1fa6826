// Writing the files the user asked for, and nothing else: each is written whole to a temporary
// file beside it, synced and closed with every error checked, then renamed over the name. A
// name that exists and is not a regular file (a symbolic link, a device, a directory) is
// refused rather than followed, and so is a directory on the way that is a symbolic link below
// the one the user named; a full disk is an error naming the file, never an empty file.
#pragma once
#include <string>

// Writes text to path (appended to what a regular file there holds, with `append`). False with
// *err naming the path and the reason.
bool write_file_safely(const std::string& path, const std::string& text, std::string* err, bool append = false);
// A directory `sub` inside `dir` (made if missing) that is a real directory, not a link.
bool make_real_directory(const std::string& dir, const std::string& sub, std::string* err);
// Whether path could be written by write_file_safely: "" if so, else why not (nothing is created).
std::string unwritable_path(const std::string& path);
// A directory for output files (made if missing): "" if it is one and writable, else
// "OPTION DIR: why not".
std::string unusable_output_dir(const std::string& option, const std::string& dir);
// stdout flushed and without a write error; false with *err when it lost output (a full disk).
bool stdout_intact(std::string* err);
