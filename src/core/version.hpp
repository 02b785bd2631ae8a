#pragma once
// Versions, read once: a dotted release number (Version) out of the ways tools, packages, CMake and
// ELF symbol versions spell it, compared numerically part by part ("3.18" < "3.25.1", missing parts
// count as 0: "12" == "12.0"). Each reader below says what it accepts; none of them is written twice.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

struct Version {
  std::vector<int> parts;
  std::string str() const;  // "3.25.1"
  int major() const { return parts.empty() ? 0 : parts[0]; }
  int minor() const { return parts.size() > 1 ? parts[1] : 0; }
  bool empty() const { return parts.empty(); }
};
int compare(const Version& a, const Version& b);  // -1, 0, 1; missing parts count as 0

// Exactly a dotted number, nothing around it: "3.25.1", "12"; not "3.", "x3", "2.1.0+cu121".
std::optional<Version> parse_version(std::string_view text);
// The first dotted number (at least major.minor) standing alone in free text: "cmake version 3.25.1",
// "g++ (Debian 12.2.0-14+deb12u1) 12.2.0" -> 12.2.0.
std::optional<Version> find_version(std::string_view text);
// The release number a version starts with, as packages spell it (PEP 440's release segment): an
// optional "v", then numbers while a '.' is followed by a digit: "2.1.0+cu121" -> 2.1.0, "2.6.0a0" ->
// 2.6.0, "1.14.0.dev2022" -> 1.14.0, "12.4" -> 12.4; empty when the text starts with no number.
Version leading_version(std::string_view text);
// Each '.'-separated part's leading number, 0 for a part with none, as CMake's VERSION_LESS and
// friends read them: "1.2a.3" -> 1.2.3, "1.x.3" -> 1.0.3, "" -> no parts.
Version cmake_version(std::string_view text);
// An ELF symbol version's number, after the first '_' of its name, read as cmake_version:
// "GLIBC_2.34" -> 2.34, "GLIBCXX_3.4.30" -> 3.4.30, "GLIBC_PRIVATE" -> 0.
Version symbol_version(std::string_view text);

// The first two numbers of leading_version, as text: "12.4.131" -> "12.4", "12.4" -> "12.4", "13" -> "13",
// "" -> "" (what CUDA release an nvcc version is, for people and for tags).
std::string major_minor(std::string_view text);

}  // namespace kiln::core
