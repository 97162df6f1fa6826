#include "proofs/concrete_eval.hpp"

#include <deque>
#include <set>
#include <unordered_map>

enum class Op {
  Numeral, Var, IntName, ArrayName, Not, And, Or, Implies, Xor, Ite, Eq, Distinct, Le, Lt, Ge, Gt,
  Add, Sub, Neg, Mul, Div, Mod, Select, Store, ConstArray, Forall, Exists,
};

struct CompiledFormula::Node {
  Op op;
  std::vector<int> args;
  long long value = 0;              // Numeral's value, Var's de Bruijn index
  std::string name;                 // IntName, ArrayName
  std::vector<bool> bound_is_bool;  // Forall, Exists: the sorts of the bound variables, outermost first
};

// Thrown while compiling a formula outside the fragment.
struct Unsupported {
  std::string why;
};

class Compiler {
 public:
  explicit Compiler(CompiledFormula* f) : f_(f) {}
  std::vector<CompiledFormula::Node> nodes;

  int compile(const z3::expr& e) {
    auto done = seen_.find(e.id());
    if (done != seen_.end()) return done->second;
    CompiledFormula::Node n = node_of(e);
    nodes.push_back(n);
    return seen_[e.id()] = (int)nodes.size() - 1;
  }

 private:
  static bool int_or_bool(const z3::sort& s) { return s.is_int() || s.is_bool(); }

  CompiledFormula::Node node_of(const z3::expr& e) {
    CompiledFormula::Node n{Op::Numeral, {}, 0, "", {}};
    z3::context& c = e.ctx();
    if (e.is_var()) {
      if (!int_or_bool(e.get_sort())) throw Unsupported{"a bound variable that is not Int or Bool"};
      n.op = Op::Var;
      n.value = Z3_get_index_value(c, e);
      return n;
    }
    if (e.is_quantifier()) {
      if (!e.is_forall() && !e.is_exists()) throw Unsupported{"a lambda"};
      n.op = e.is_forall() ? Op::Forall : Op::Exists;
      for (unsigned i = 0; i < Z3_get_quantifier_num_bound(c, e); i++) {
        z3::sort s(c, Z3_get_quantifier_bound_sort(c, e, i));
        if (!int_or_bool(s)) throw Unsupported{"a quantifier over " + s.to_string()};
        n.bound_is_bool.push_back(s.is_bool());
      }
      n.args.push_back(compile(e.body()));
      return n;
    }
    if (e.is_numeral()) {
      int64_t v;
      if (!e.is_numeral_i64(v)) throw Unsupported{"the numeral " + e.to_string()};
      n.value = v;
      f_->numerals_.push_back(v);
      return n;
    }
    if (e.is_true() || e.is_false()) {
      n.value = e.is_true();
      return n;
    }
    if (!e.is_app()) throw Unsupported{e.to_string()};
    if (e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
      if (e.num_args() > 0) throw Unsupported{"the function " + e.decl().name().str()};
      n.op = e.is_array() ? Op::ArrayName : Op::IntName;
      n.name = e.decl().name().str();
      return n;
    }
    static const std::unordered_map<int, Op> ops = {
        {Z3_OP_NOT, Op::Not},       {Z3_OP_AND, Op::And},     {Z3_OP_OR, Op::Or},          {Z3_OP_IMPLIES, Op::Implies},
        {Z3_OP_XOR, Op::Xor},       {Z3_OP_ITE, Op::Ite},     {Z3_OP_EQ, Op::Eq},          {Z3_OP_DISTINCT, Op::Distinct},
        {Z3_OP_LE, Op::Le},         {Z3_OP_LT, Op::Lt},       {Z3_OP_GE, Op::Ge},          {Z3_OP_GT, Op::Gt},
        {Z3_OP_ADD, Op::Add},       {Z3_OP_SUB, Op::Sub},     {Z3_OP_UMINUS, Op::Neg},     {Z3_OP_MUL, Op::Mul},
        {Z3_OP_IDIV, Op::Div},      {Z3_OP_MOD, Op::Mod},     {Z3_OP_SELECT, Op::Select},  {Z3_OP_STORE, Op::Store},
        {Z3_OP_CONST_ARRAY, Op::ConstArray},
    };
    auto op = ops.find(e.decl().decl_kind());
    if (op == ops.end()) throw Unsupported{"the operator " + e.decl().name().str()};
    n.op = op->second;
    if ((n.op == Op::Mul || n.op == Op::Div || n.op == Op::Mod) && !(e.num_args() == 2 && e.arg(1).is_numeral()) &&
        !(n.op == Op::Mul && e.num_args() == 2 && e.arg(0).is_numeral()))
      throw Unsupported{"non-linear arithmetic"};
    if (n.op == Op::Eq && e.arg(0).is_array()) throw Unsupported{"array equality"};
    for (unsigned i = 0; i < e.num_args(); i++) n.args.push_back(compile(e.arg(i)));
    return n;
  }

  CompiledFormula* f_;
  std::unordered_map<unsigned, int> seen_;
};

bool CompiledFormula::compile(const z3::expr& e, CompiledFormula* out, std::string* why) {
  CompiledFormula f;
  Compiler compiler(&f);
  try {
    f.root_ = compiler.compile(e);
  } catch (const Unsupported& u) {
    *why = u.why;
    return false;
  } catch (const z3::exception& x) {
    *why = x.msg();
    return false;
  }
  f.nodes_ = std::make_shared<const std::vector<Node>>(std::move(compiler.nodes));
  *out = f;
  return true;
}

class Interpreter {
 public:
  Interpreter(const std::vector<CompiledFormula::Node>& nodes, const ConcreteValues& v, std::vector<long long> ints)
      : nodes_(nodes), values_(v), candidates_(std::move(ints)) {}

  // Outside quantifiers a node's value is fixed: cached, so that a term shared many times (a
  // transition's state after each loop iteration) is evaluated once.
  long long value(int i) {
    if (!bound_.empty()) return compute(i);
    if (cached_.empty()) cached_.assign(nodes_.size(), 0), have_.assign(nodes_.size(), 0);
    if (!have_[i]) cached_[i] = compute(i), have_[i] = 1;
    return cached_[i];
  }

  long long compute(int i) {
    const CompiledFormula::Node& n = nodes_[i];
    const std::vector<int>& a = n.args;
    switch (n.op) {
      case Op::Numeral: return n.value;
      case Op::Var: return bound_[bound_.size() - 1 - n.value];
      case Op::IntName: {
        auto it = values_.ints.find(n.name);
        if (it == values_.ints.end()) throw Unsupported{"no value for " + n.name};
        return it->second;
      }
      case Op::Not: return !value(a[0]);
      case Op::And:
        for (int x : a)
          if (!value(x)) return 0;
        return 1;
      case Op::Or:
        for (int x : a)
          if (value(x)) return 1;
        return 0;
      case Op::Implies: return !value(a[0]) || value(a[1]);
      case Op::Xor: return value(a[0]) != value(a[1]);
      case Op::Ite: return value(a[0]) ? value(a[1]) : value(a[2]);
      case Op::Eq: return value(a[0]) == value(a[1]);
      case Op::Distinct: {
        std::set<long long> seen;
        for (int x : a)
          if (!seen.insert(value(x)).second) return 0;
        return 1;
      }
      case Op::Le: return value(a[0]) <= value(a[1]);
      case Op::Lt: return value(a[0]) < value(a[1]);
      case Op::Ge: return value(a[0]) >= value(a[1]);
      case Op::Gt: return value(a[0]) > value(a[1]);
      case Op::Add: {
        long long s = 0;
        for (int x : a) s += value(x);
        return s;
      }
      case Op::Sub: {
        long long s = value(a[0]);
        for (size_t k = 1; k < a.size(); k++) s -= value(a[k]);
        return s;
      }
      case Op::Neg: return -value(a[0]);
      case Op::Mul: {
        long long p = 1;
        for (int x : a) p *= value(x);
        return p;
      }
      case Op::Div:
      case Op::Mod: {
        long long x = value(a[0]), y = value(a[1]);
        if (y == 0) throw Unsupported{"division by zero"};
        long long q = x / y, r = x % y;
        if (r < 0) r += y > 0 ? y : -y, q += y > 0 ? -1 : 1;  // SMT-LIB: 0 <= r < |y|
        return n.op == Op::Div ? q : r;
      }
      case Op::Select: return array(a[0]).get(value(a[1]));
      case Op::Forall:
      case Op::Exists: return quantified(n, n.op == Op::Forall, 0);
      default: throw Unsupported{"an array where a value is needed"};
    }
  }

 private:
  const ConcreteArray& array(int i) {
    if (!bound_.empty()) return compute_array(i);
    if (arrays_.empty()) arrays_.assign(nodes_.size(), nullptr);
    if (!arrays_[i]) arrays_[i] = &compute_array(i);
    return *arrays_[i];
  }

  const ConcreteArray& compute_array(int i) {
    const CompiledFormula::Node& n = nodes_[i];
    if (n.op == Op::Ite) return value(n.args[0]) ? array(n.args[1]) : array(n.args[2]);
    if (n.op == Op::ArrayName) {
      auto it = values_.arrays.find(n.name);
      if (it == values_.arrays.end()) throw Unsupported{"no value for " + n.name};
      return it->second;
    }
    if (n.op == Op::ConstArray) {
      scratch_.emplace_back();
      scratch_.back().dflt = value(n.args[0]);
      return scratch_.back();
    }
    if (n.op == Op::Store) {
      ConcreteArray stored = array(n.args[0]);
      stored.at[value(n.args[1])] = value(n.args[2]);
      scratch_.push_back(std::move(stored));
      return scratch_.back();
    }
    throw Unsupported{"an array term"};
  }

  // Binds the quantifier's variables from the outermost, each over its candidates.
  long long quantified(const CompiledFormula::Node& n, bool forall, size_t var) {
    if (var == n.bound_is_bool.size()) return value(n.args[0]);
    static const std::vector<long long> booleans = {0, 1};
    for (long long x : n.bound_is_bool[var] ? booleans : candidates_) {
      bound_.push_back(x);
      long long r = quantified(n, forall, var + 1);
      bound_.pop_back();
      if (forall && !r) return 0;
      if (!forall && r) return 1;
    }
    return forall;
  }

  const std::vector<CompiledFormula::Node>& nodes_;
  const ConcreteValues& values_;
  std::vector<long long> candidates_, bound_;
  std::deque<ConcreteArray> scratch_;  // a deque: references to its elements stay valid
  std::vector<long long> cached_;
  std::vector<char> have_;
  std::vector<const ConcreteArray*> arrays_;
};

bool CompiledFormula::evaluate(const ConcreteValues& v, bool* holds) const {
  std::set<long long> points(numerals_.begin(), numerals_.end());
  points.insert(0);
  for (const auto& kv : v.ints) points.insert(kv.second);
  for (const auto& kv : v.arrays) {
    points.insert(kv.second.dflt);
    for (const auto& entry : kv.second.at) {
      points.insert(entry.first);
      points.insert(entry.second);
    }
  }
  std::set<long long> near;
  for (long long p : points)
    for (long long d = -2; d <= 2; d++) near.insert(p + d);
  Interpreter run(*nodes_, v, std::vector<long long>(near.begin(), near.end()));
  try {
    *holds = run.value(root_) != 0;
    return true;
  } catch (const Unsupported&) {
    return false;
  }
}
