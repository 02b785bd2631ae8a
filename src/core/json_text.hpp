#pragma once
// JSON text that never throws on bytes that are not UTF-8. nlohmann::json's dump() throws
// type_error 316 on them, and paths, log lines and symbol names are bytes, not text. Each byte
// that is not part of a valid UTF-8 sequence is written as the four characters "\xNN" (as
// `ls --quoting-style=escape` does): readable, lossless, never fatal.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace kiln::core {

bool valid_utf8(std::string_view text);
std::string utf8_escape(std::string_view text);

// Escapes every string and object key of `j` in place.
template <class Json>
void utf8_escape_all(Json& j) {
  if (j.is_string()) {
    auto& s = j.template get_ref<std::string&>();
    if (!valid_utf8(s)) s = utf8_escape(s);
  } else if (j.is_array()) {
    for (auto& e : j) utf8_escape_all(e);
  } else if (j.is_object()) {
    bool bad_key = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      bad_key = bad_key || !valid_utf8(it.key());
      utf8_escape_all(it.value());
    }
    if (bad_key) {  // keys are const in place: rebuild the object, in order
      Json fixed = Json::object();
      for (auto it = j.begin(); it != j.end(); ++it) fixed[utf8_escape(it.key())] = std::move(it.value());
      j = std::move(fixed);
    }
  }
}

// dump() after escaping a copy.
template <class Json>
std::string dump_json(Json j, int indent = -1) {
  utf8_escape_all(j);
  return j.dump(indent);
}

}  // namespace kiln::core
