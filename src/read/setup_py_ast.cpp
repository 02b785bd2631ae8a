#include "read/setup_py_ast.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "core/text.hpp"
#include "core/data.hpp"
#include "io/isolated_python.hpp"

namespace kiln::read {
namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

KnobSighting sighting(const json& s) {
  KnobSighting k;
  k.name = str(s, "name");
  k.file = str(s, "file");
  k.line = s.value("line", 0);
  k.text = str(s, "text");
  k.use = str(s, "use") == "compare" ? KnobSighting::Use::compare : KnobSighting::Use::value;
  k.true_value = str(s, "true_value");
  k.negated = s.value("negated", false);
  k.default_value = str(s, "default");
  k.has_default = s.value("has_default", false);
  k.flag = str(s, "flag");
  k.effect = str(s, "effect");
  k.want_match = s.value("want_match", false);
  k.effect_value = str(s, "effect_value");
  k.prefix = s.value("prefix", false);
  k.or_probe = s.value("or_probe", false);
  k.effect_where = str(s, "effect_where");
  k.effect_text = str(s, "effect_text");
  k.before_cuda = s.value("before_cuda", false);
  for (auto [key, list] : {std::pair{"beside", &k.beside}, std::pair{"libraries", &k.libraries}})
    if (auto b = s.find(key); b != s.end() && b->is_array())
      for (const auto& n : *b)
        if (n.is_string()) list->push_back(n.get<std::string>());
  if (auto g = s.find("gate_archs"); g != s.end() && g->is_array())
    for (const auto& n : *g)
      if (n.is_number_integer()) k.gate_archs.push_back(n.get<int>());
  if (auto a = s.find("arch"); a != s.end() && a->is_object()) {
    k.arch.reach = str(*a, "reach");
    k.arch.sep = str(*a, "sep");
    k.arch.form = arch_form_from(str(*a, "form"));
    k.arch.dot_dropped = a->value("dot_dropped", false);
    k.arch.suffix = a->value("suffix", false);
  }
  return k;
}

// "setup.py:66" -> file and line of a probe.
KnobSighting probe(const json& p) {
  KnobSighting k;
  k.use = KnobSighting::Use::probe;
  const std::string where = str(p, "where");
  auto colon = where.rfind(':');
  k.file = where.substr(0, colon);
  if (colon != std::string::npos) k.line = static_cast<int>(core::parse_int(where.substr(colon + 1)).value_or(0));
  k.text = str(p, "text");
  return k;
}

}  // namespace

tl::expected<SetupPyReading, std::string> parse_setup_reading(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return tl::unexpected(std::string("the reader printed no JSON object"));
  if (j.value("version", 0) != 1) return tl::unexpected(std::string("the reader's JSON has an unknown version"));
  SetupPyReading r;
  try {
    for (const auto& s : j.value("sightings", json::array())) r.sightings.push_back(sighting(s));
    for (const auto& p : j.value("probes", json::array())) r.sightings.push_back(probe(p));
    for (const auto& o : j.value("ops", json::array())) {
      OpSwitch op;
      op.name = str(o, "name");
      op.var = str(o, "var");
      op.where = str(o, "where");
      op.checks = str(o, "checks");
      op.cuda = o.value("cuda", false);
      op.min_cc = o.value("min_cc", 0);
      for (const auto& l : o.value("libraries", json::array()))
        if (l.is_string()) op.libraries.push_back(l.get<std::string>());
      for (const auto& t : o.value("torch", json::array())) {
        TorchCheck c;
        c.need = t.value("need", true);
        c.where = str(t, "where");
        c.text = str(t, "text");
        for (const auto& a : t.value("all", json::array()))
          if (a.is_array() && a.size() == 3 && a[0].is_string() && a[1].is_string() && a[2].is_number_integer())
            c.all.push_back(TorchCheck::Cmp::from(a[0].get<std::string>(), a[1].get<std::string>(), a[2].get<int>()));
        if (!c.all.empty()) op.torch_checks.push_back(std::move(c));
      }
      for (const auto& u : o.value("open", json::array())) {
        Undecided d{str(u, "where"),  str(u, "text"),       str(u, "why"),
                    str(u, "module"), str(u, "folder_var"), u.value("required", false)};
        op.open.push_back(std::move(d));
      }
      if (!op.var.empty()) r.ops.push_back(std::move(op));
    }
    for (const auto& e : j.value("extensions", json::array()))
      r.extensions.push_back(str(e, "where") + " " + str(e, "kind"));
    for (const auto& u : j.value("undecided", json::array()))
      r.undecided.push_back({str(u, "where"), str(u, "text"), str(u, "why"), "", "", false});
    for (const auto& u : j.value("build_options", json::array()))
      r.build_options.push_back({str(u, "where"), str(u, "text"), str(u, "why"), "", "", false});
    for (const auto& a : j.value("arch_parsers", json::array())) {
      ArchParser ap;
      ap.var = str(a, "var");
      ap.read = str(a, "read");
      ap.text = str(a, "text");
      ap.plus_ok = a.value("plus_ok", false);
      ap.suffix_ok = a.value("suffix_ok", false);
      for (const auto& w : a.value("sites", json::array()))
        if (w.is_string()) ap.sites.push_back(w.get<std::string>());
      if (!ap.var.empty() && !ap.sites.empty()) r.arch_parsers.push_back(std::move(ap));
    }
    for (const auto& c : j.value("torch_checks", json::array()))
      if (!str(c, "specifier").empty()) r.torch_checks.push_back({str(c, "where"), str(c, "specifier")});
    for (const auto& f : j.value("files", json::array()))
      if (f.is_string()) r.files.push_back(f.get<std::string>());
  } catch (const json::exception& e) {
    return tl::unexpected(std::string("the reader's JSON has an unexpected shape: ") + e.what());
  }
  r.cuda_evidence = str(j, "cuda_evidence");
  r.hardcoded_archs = str(j, "hardcoded_archs");
  r.calls_cmake = str(j, "calls_cmake");
  return r;
}

tl::expected<SetupPyReading, std::string> read_setup_py_ast(io::ProcessRunner& proc, const std::string& python,
                                                            const std::string& dir) {
  if (python.empty()) return tl::unexpected(std::string("no Python interpreter found"));
  auto script = data::file("read_setup.py");
  if (!script) return tl::unexpected(std::string("read_setup.py is not embedded"));
  // -I -S, run from "/" (io/isolated_python). The script bounds its own time (signal.alarm) and
  // imports only the standard library.
  std::error_code ec;
  const auto abs = std::filesystem::absolute(dir, ec);
  auto r = proc.run(io::isolated_python(python, std::string(*script), io::PythonSite::skipped,
                                        {ec ? dir : abs.lexically_normal().string()}));
  if (!r.started) return tl::unexpected(python + " did not start: " + r.spawn_error);
  if (!r.ok()) {
    std::string err = r.err.substr(r.err.rfind('\n', r.err.size() > 1 ? r.err.size() - 2 : 0) + 1);
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    return tl::unexpected(python + " could not read setup.py" + (err.empty() ? std::string() : ": " + err));
  }
  return parse_setup_reading(r.out);
}

}  // namespace kiln::read
