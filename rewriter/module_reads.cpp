#include "rewriter/module_reads.h"

#include <string>
#include <vector>

#include "classfile/opcodes.h"

namespace duplex {
namespace {

std::string dotted(std::string_view internal_name) {
  std::string name(internal_name);
  for (char& c : name) c = c == '/' ? '.' : c;
  return name;
}

}  // namespace

Result<ModuleReadsRefs> module_reads_refs(ClassFile& cf, std::string_view runtime_class) {
  if (cf.major_version < 49) return Error::plain("a class before version 49 cannot ldc a Class");
  ConstantPool& pool = cf.pool;
  auto get_module = pool.add_methodref("java/lang/Class", "getModule", "()Ljava/lang/Module;");
  if (!get_module) return get_module.error();
  auto for_name =
      pool.add_methodref("java/lang/Class", "forName",
                         "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;");
  if (!for_name) return for_name.error();
  auto get_loader =
      pool.add_methodref("java/lang/Class", "getClassLoader", "()Ljava/lang/ClassLoader;");
  if (!get_loader) return get_loader.error();
  auto add_reads =
      pool.add_methodref("java/lang/Module", "addReads", "(Ljava/lang/Module;)Ljava/lang/Module;");
  if (!add_reads) return add_reads.error();
  auto runtime = pool.add_string(dotted(runtime_class));
  if (!runtime) return runtime.error();
  return ModuleReadsRefs{cf.this_class, *get_module, *for_name, *get_loader, *add_reads, *runtime};
}

void prepend_module_reads(CodeIR& ir, const ModuleReadsRefs& r) {
  const LabelId start = ir.new_label();
  const LabelId end = ir.new_label();
  const LabelId handler = ir.new_label();
  // The code after the prologue, which the goto needs a frame at: its first label when that
  // carries one already, else a new label (the assembler computes the frame of a run of labels
  // at one offset that lacks one).
  LabelId join = kNoLabel;
  if (!ir.insns.empty() && ir.insns.front().is_label()) {
    const LabelId first = ir.insns.front().label();
    if (first < ir.labels.size() && ir.labels[first].frame) join = first;
  }
  const bool new_join = join == kNoLabel;
  if (new_join) join = ir.new_label();
  // ldc_w (which the assembler keeps) and a short goto: 26 + 3 + 1 bytes, then nops to 32.
  std::vector<Insn> code = {
      Insn::make_label(start),
      Insn::make(op::kLdcW, r.this_class),
      Insn::make(op::kInvokevirtual, r.get_module),
      Insn::make(op::kLdcW, r.runtime),
      Insn::make(op::kIconst0),
      Insn::make(op::kLdcW, r.this_class),
      Insn::make(op::kInvokevirtual, r.get_loader),
      Insn::make(op::kInvokestatic, r.for_name),
      Insn::make(op::kInvokevirtual, r.get_module),
      Insn::make(op::kInvokevirtual, r.add_reads),
      Insn::make(op::kPop),
      Insn::make_label(end),
      Insn::make_branch(op::kGoto, join),
      Insn::make_label(handler),
      Insn::make(op::kPop),  // the Throwable
      Insn::make(op::kNop),
      Insn::make(op::kNop),
  };
  if (new_join) code.push_back(Insn::make_label(join));
  ir.insns.insert(ir.insns.begin(), code.begin(), code.end());
  ir.try_catches.insert(ir.try_catches.begin(), TryCatch{start, end, handler, 0});
}

}  // namespace duplex
