#include "drive/ninja_dry_run.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "launch/exec_launcher.hpp"

namespace kiln::drive {

std::string unit_plan_from_dry_run(const std::string& ninja_output, const std::string& group, int jobs) {
  std::string plan;
  std::istringstream in(ninja_output);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '[') continue;
    std::vector<std::string> words;
    std::istringstream w(line.substr(line.find(' ') == std::string::npos ? line.size() : line.find(' ')));
    for (std::string word; w >> word;) words.push_back(word);
    if (std::find(words.begin(), words.end(), "-c") == words.end()) continue;
    const std::string out = launch::output_of(words), src = launch::source_of(words);
    if (out.empty() || src.empty() || out.find('\t') != std::string::npos || src.find('\t') != std::string::npos)
      continue;
    const int targets = launch::device_targets_of(words);  // 0 unless nvcc
    const bool cuda = std::any_of(words.begin(), words.end(), [](const std::string& a) {
      return a.size() >= 4 && a.compare(a.size() - 4, 4, "nvcc") == 0 && (a.size() == 4 || a[a.size() - 5] == '/');
    });
    plan += "unit\t" + group + "\t" + std::to_string(jobs) + "\t" + (cuda ? "cuda" : "cxx") + "\t" +
            std::to_string(cuda ? std::max(1, targets) : 0) + "\t" + out + "\t" + src + "\n";
  }
  return plan;
}

}  // namespace kiln::drive
