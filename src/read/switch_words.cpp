#include "read/switch_words.hpp"

namespace kiln::read {
namespace {

bool upper_word_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
bool word_char(char c) { return upper_word_char(c) || (c >= 'a' && c <= 'z'); }

void add_words(const std::string& text, std::set<std::string>& out) {
  size_t i = 0;
  while (i < text.size()) {
    if (!word_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    bool upper = true;
    while (j < text.size() && word_char(text[j])) upper &= upper_word_char(text[j++]);
    // An upper-case identifier of at least 3 characters that starts with a letter.
    if (upper && j - i >= 3 && text[i] >= 'A' && text[i] <= 'Z') out.insert(text.substr(i, j - i));
    i = j;
  }
}

}  // namespace

std::set<std::string> switch_words(const io::Filesystem& fs, const std::string& project_dir) {
  std::set<std::string> words;
  for (const char* name : {"setup.py", "CMakeLists.txt", "pyproject.toml", "setup.cfg"}) {
    const std::string path = project_dir + "/" + name;
    if (io::read_refusal(fs, path, io::kProjectFileMaxBytes)) continue;
    if (auto text = fs.read(path)) add_words(*text, words);
  }
  return words;
}

}  // namespace kiln::read
