#include "model/sched.hpp"

task_struct* g_tasks = nullptr;
