#include "verify/trace.hpp"

#include <fstream>
#include <sstream>
#include "verify/cli.hpp"
#include "verify/json.hpp"
#include "verify/json_read.hpp"

std::string trace_text(const RunResult& r) { return r.history; }

bool write_trace(const std::string& file, const RunResult& r, std::string* err) {
  JsonObject o;
  o.str("scenario", r.scenario).str("mutant", r.mutant).str("search", r.search).str("state", r.state);
  o.str("kind", r.kind).str("message", r.message).str("history", r.history);
  std::ofstream j(file), t(file + ".txt");
  if (!j || !t) {
    *err = "cannot write trace file '" + file + "'";
    return false;
  }
  j << o.done() << "\n";
  t << result_text(r) << "\n" << trace_text(r);
  return true;
}

bool read_trace(const std::string& file, RunResult* r, std::string* err) {
  std::ifstream in(file);
  if (!in) {
    *err = "cannot read trace file '" + file + "'";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  JsonValue v;
  if (!json_parse(ss.str(), &v, err)) {
    *err = file + ": " + *err;
    return false;
  }
  for (const char* k : {"scenario", "mutant", "search", "state", "kind"}) {
    if (!v.has(k) || v[k].type != JsonValue::String) {
      *err = file + ": not a vmaverify trace (no string field '" + k + "')";
      return false;
    }
  }
  r->scenario = v["scenario"].s;
  r->mutant = v["mutant"].s;
  r->search = v["search"].s;
  r->state = v["state"].s;
  r->kind = v["kind"].s;
  r->message = v.has("message") ? v["message"].s : "";
  return true;
}
