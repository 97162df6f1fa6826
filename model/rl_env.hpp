// Include point for every Relacy-instrumented file. Relacy redefines new, delete,
// malloc, free and assert, so every standard header must come before it.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

// Placement construction of an object with a lifetime inside an iteration (a waiter on a task's
// stack), defined before Relacy redefines new.
template <class T>
T* construct_in(void* storage) {
  return ::new (storage) T;
}

#include <relacy/relacy.hpp>
