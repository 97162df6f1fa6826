// Small programs with CPUs and priorities, each searched by name (preempt_programs.cpp).
#pragma once
#include <string>
#include "verify/search/result.hpp"

// Searched in full by the engine alone (no reduction): verified, or a counterexample with the
// failing check's kind and message; an unknown name is an error.
RunResult search_preempt_program(const std::string& program);
