// Include point for every Relacy-instrumented file. Relacy redefines new, delete,
// malloc, free and assert, so every standard header must come before it.
#pragma once
#include <algorithm>
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
#include <vector>

#include <relacy/relacy.hpp>
