// Methods of a class whose rewrite carries no counting check, so that a call to them leaves a
// caller's loop budget exact (CheckForm::kLocal in the default layout; duplicate_code.cpp).
#pragma once

#include <set>
#include <string>

#include "classfile/class_file.h"
#include "rewriter/rewriter.h"

namespace duplex {

// Name + descriptor of each static or private method of `cf` that gets flag checks under
// `options` (loop-free, at most flag_check_max_bytes bytes, not entered from outside: see
// dup_plan.h) in Full-, Partial-Duplication or Checks-only. Loop-free is judged from the bytes,
// conservatively: no backward branch, no switch, no exception handler, no jsr. Calls to such a
// method by invokestatic or invokespecial reach exactly it. Empty in other modes.
std::set<std::string> quiet_methods(const ClassFile& cf, const RewriteOptions& options);

}  // namespace duplex
