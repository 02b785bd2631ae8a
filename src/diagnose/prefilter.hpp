#pragma once
// Finds any of a fixed set of literal keywords in a block of text in one pass, so that lines
// without a keyword never reach std::regex (which is slow). Sampling: every S-th position's 4 bytes
// are hashed into an 8 KiB bitmap of the keywords' 4-grams; only a set bit leads to a comparison.
// With every keyword at least S+3 bytes long, each occurrence covers exactly one sampled position,
// so nothing is missed, and S = 3 or 4 means the scan touches a byte about once per 3-4 bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::diagnose {

class LiteralPrefilter {
public:
  // Keywords must be at least 4 bytes long.
  explicit LiteralPrefilter(std::vector<std::string> keywords);

  struct Hit {
    size_t pos;      // offset of the keyword in the scanned text
    uint32_t index;  // which keyword
  };
  // Appends every occurrence of every keyword in `text` to `hits` (positions roughly ascending).
  void scan(std::string_view text, std::vector<Hit>& hits) const;
  const std::vector<std::string>& keywords() const { return keywords_; }
  size_t stride() const { return stride_; }

private:
  struct Entry {
    uint32_t gram;
    uint32_t keyword;
    uint32_t offset;
  };
  static uint32_t hash(uint32_t gram) { return (gram * 2654435761u) >> 16; }
  std::vector<std::string> keywords_;
  size_t stride_ = 1;
  std::vector<uint64_t> bits_;  // 65536 bits
  // Entries sorted by hash bucket; bucket_start_[h] .. bucket_start_[h+1].
  std::vector<Entry> entries_;
  std::vector<uint32_t> bucket_start_;
};

}  // namespace kiln::diagnose
