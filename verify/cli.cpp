#include "verify/cli.hpp"

#include <cstdio>
#include <iostream>
#include "verify/json.hpp"

static std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}
CommandRegistrar::CommandRegistrar(Command c) { commands().push_back(c); }
const std::vector<Command>& all_commands() { return commands(); }

bool parse_args(const std::vector<std::string>& in, const std::set<std::string>& value_flags,
                const std::set<std::string>& bool_flags, Args* out, std::string* err) {
  for (size_t i = 0; i < in.size(); i++) {
    const std::string& a = in[i];
    if (a.size() < 2 || a.compare(0, 2, "--") != 0) {
      out->positional.push_back(a);
      continue;
    }
    std::string name = a, value;
    bool inline_value = false;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    if (value_flags.count(name)) {
      if (!inline_value) {
        if (i + 1 >= in.size()) {
          *err = "flag " + name + " needs a value";
          return false;
        }
        value = in[++i];
      }
      out->values[name] = value;
    } else if (bool_flags.count(name) && !inline_value) {
      out->switches.insert(name);
    } else {
      *err = "unknown flag '" + a + "'";
      return false;
    }
  }
  return true;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "vmaverify: %s\n", message.c_str());
  return EXIT_USAGE;
}

int exit_status(const RunResult& r) {
  if (r.result == "verified" || r.result == "proved") return EXIT_VERIFIED;
  if (r.result == "incomplete") return EXIT_INCOMPLETE;
  return EXIT_COUNTEREXAMPLE;
}

std::string result_text(const RunResult& r) {
  char figures[96];
  std::snprintf(figures, sizeof figures, "%llu iterations, %.2f s", (unsigned long long)r.iterations, r.seconds);
  std::string s = r.scenario + (r.mutant == "none" ? "" : " [mutant " + r.mutant + "]") +
                  (r.variant == "unbatched" ? " [unbatched baseline]" : "") + " (" + r.search +
                  "): " + r.result + (r.kind.empty() ? "" : " (" + r.kind + ")") + ", " + figures;
  for (const auto& kv : r.stats) s += ", " + kv.first + "=" + std::to_string(kv.second);
  if (!r.message.empty()) s += "\n  " + r.message;
  return s;
}

std::string result_json(const RunResult& r) {
  JsonObject o;
  o.str("scenario", r.scenario).str("mutant", r.mutant).str("variant", r.variant).str("search", r.search);
  o.str("result", r.result);
  o.str("kind", r.kind).str("message", r.message).num("iterations", (long long)r.iterations).num("seconds", r.seconds);
  for (const auto& kv : r.stats) o.num(kv.first, (long long)kv.second);
  if (!r.violated_spec.empty()) o.str("spec", r.violated_spec);
  return o.done();
}
