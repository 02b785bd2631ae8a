#pragma once
// A folder only this user can write, for state other users must not touch: the memory governor's
// machine-wide ledger (issue 34, case 4: /tmp/kiln-UID made beforehand by another user, mode 0777,
// let that user plant reservations that held a victim's builds).
#include <string>

namespace kiln::io {

// "" when `dir` is a folder, not a link, owned by `uid`, that neither group nor others may write;
// a missing one is made (0700) first. Else why it is not ("owned by uid 1001", "group or others
// may write it (mode 0777)", "a link", ...).
std::string private_folder_problem(const std::string& dir, unsigned uid);

}  // namespace kiln::io
