#include "io/private_folder.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kiln::io {

std::string private_folder_problem(const std::string& dir, unsigned uid) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return std::string("cannot make it: ") + std::strerror(errno);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return std::string("cannot read it: ") + std::strerror(errno);
  if (S_ISLNK(st.st_mode)) return "a link";
  if (!S_ISDIR(st.st_mode)) return "not a folder";
  if (st.st_uid != uid)
    return "owned by uid " + std::to_string(st.st_uid) + ", not this user (" + std::to_string(uid) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("group or others may write it (mode ") + mode + ")";
  }
  return "";
}

}  // namespace kiln::io
