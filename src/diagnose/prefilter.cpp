#include "diagnose/prefilter.hpp"

#include <algorithm>
#include <cstring>

namespace kiln::diagnose {

namespace {
inline uint32_t load4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

LiteralPrefilter::LiteralPrefilter(std::vector<std::string> keywords) : keywords_(std::move(keywords)) {
  size_t min_len = 1000;
  for (const auto& k : keywords_) min_len = std::min(min_len, k.size());
  if (keywords_.empty()) min_len = 4;
  stride_ = std::clamp<size_t>(min_len >= 4 ? min_len - 3 : 1, 1, 4);
  bits_.assign(65536 / 64, 0);
  std::vector<std::pair<uint32_t, Entry>> tmp;
  for (uint32_t k = 0; k < keywords_.size(); ++k) {
    const std::string& kw = keywords_[k];
    if (kw.size() < 4) continue;  // rejected by the signature loader; never matched here
    for (uint32_t o = 0; o < stride_ && o + 4 <= kw.size(); ++o) {
      uint32_t g = load4(kw.data() + o);
      uint32_t h = hash(g);
      bits_[h >> 6] |= uint64_t{1} << (h & 63);
      tmp.push_back({h, Entry{g, k, o}});
    }
  }
  std::sort(tmp.begin(), tmp.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  bucket_start_.assign(65537, 0);
  for (const auto& [h, e] : tmp) bucket_start_[h + 1]++;
  for (size_t i = 1; i < bucket_start_.size(); ++i) bucket_start_[i] += bucket_start_[i - 1];
  entries_.reserve(tmp.size());
  for (const auto& [h, e] : tmp) entries_.push_back(e);
}

void LiteralPrefilter::scan(std::string_view text, std::vector<Hit>& hits) const {
  const char* base = text.data();
  const size_t n = text.size();
  if (n < 4) return;
  const size_t last = n - 4;
  const size_t s = stride_;
  for (size_t p = 0; p <= last; p += s) {
    uint32_t g = load4(base + p);
    uint32_t h = hash(g);
    if (!(bits_[h >> 6] & (uint64_t{1} << (h & 63)))) continue;
    for (uint32_t i = bucket_start_[h]; i < bucket_start_[h + 1]; ++i) {
      const Entry& e = entries_[i];
      if (e.gram != g || e.offset > p) continue;
      size_t q = p - e.offset;
      const std::string& kw = keywords_[e.keyword];
      if (q + kw.size() <= n && std::memcmp(base + q, kw.data(), kw.size()) == 0) hits.push_back({q, e.keyword});
    }
  }
}

}  // namespace kiln::diagnose
