// Small programs with CPUs and priorities, each searched by name (preempt_programs.cpp).
#pragma once
#include <string>
#include "verify/search/result.hpp"

RunResult search_preempt_program(const std::string& program, const std::string& search_kind = "full");
