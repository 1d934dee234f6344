#include "rewriter/site_registration.h"

#include "classfile/assembler.h"
#include "classfile/code_ir.h"
#include "classfile/opcodes.h"
#include "rewriter/key_text.h"
#include "rewriter/module_reads.h"
#include "rewriter/runtime_api.h"

namespace duplex {
namespace {

constexpr size_t kPartLimit = 60000;  // below the 65535-byte constant limit, with room
constexpr const char* kClinit = "<clinit>";
constexpr const char* kClinitDesc = "()V";

// Each part: [ldc_w Class] ldc_w String, invokestatic. The prefix is padded with nops to a
// multiple of 4 bytes so that the rest of <clinit> keeps its switch padding, and therefore
// its offsets shift by exactly the prefix size.
uint32_t prefix_size(size_t parts, bool with_class) {
  uint32_t raw = static_cast<uint32_t>(parts * (with_class ? 9 : 6));
  return (raw + 3) & ~3u;
}

bool ldc_class_allowed(const ClassFile& cf) {
  return cf.major_version >= 49;
}

Result<std::vector<Insn>> prefix_insns(ClassFile& cf, const std::vector<std::string>& parts,
                                       std::string_view runtime_class) {
  std::vector<Insn> out;
  bool with_class = ldc_class_allowed(cf);
  const char* name = with_class ? runtime_api::kRegister : runtime_api::kRegisterByName;
  const char* desc = with_class ? runtime_api::kRegisterDesc : runtime_api::kRegisterByNameDesc;
  auto method = cf.pool.add_methodref(runtime_class, name, desc);
  if (!method) return method.error();
  for (const std::string& part : parts) {
    if (with_class) out.push_back(Insn::make(op::kLdcW, cf.this_class));
    auto text = cf.pool.add_string(part);
    if (!text) return text.error();
    out.push_back(Insn::make(op::kLdcW, *text));
    out.push_back(Insn::make(op::kInvokestatic, *method));
  }
  uint32_t size = static_cast<uint32_t>(parts.size() * (with_class ? 9 : 6));
  for (; size < prefix_size(parts.size(), with_class); ++size) out.push_back(Insn::make(op::kNop));
  return out;
}

Status create_clinit(ClassFile& cf, std::vector<Insn> prefix, const ClinitLead& lead) {
  auto name = cf.pool.add_utf8(kClinit);
  auto desc = cf.pool.add_utf8(kClinitDesc);
  auto code_name = cf.pool.add_utf8("Code");
  if (!name || !desc || !code_name) return Error::plain("constant pool is full");
  Member m;
  m.access_flags = access::kStatic;
  m.name_index = *name;
  m.descriptor_index = *desc;
  CodeIR ir;
  ir.max_locals = 0;
  ir.insns = std::move(prefix);
  ir.insns.push_back(Insn::make(op::kReturn));
  if (lead.module_reads) prepend_module_reads(ir, *lead.module_reads);
  MethodContext ctx{cf.name(), kClinit, kClinitDesc, access::kStatic, cf.major_version};
  auto assembled = assemble_code(ir, cf.pool, ctx);
  if (!assembled) return assembled.error();
  Attribute code;
  code.name_index = *code_name;
  cf.set_attribute_data(code, assembled->code_attribute);
  m.attributes.push_back(std::move(code));
  cf.methods.push_back(std::move(m));
  return Ok{};
}

Status prepend_to_existing_clinit(ClassFile& cf, Member& clinit, std::vector<Insn> prefix,
                                  const ClinitLead& lead, CodeSource source) {
  auto ir = build_code_ir(cf, clinit, source);
  if (!ir) return ir.error();
  ir->insns.insert(ir->insns.begin(), prefix.begin(), prefix.end());
  if (lead.module_reads) prepend_module_reads(ir.value(), *lead.module_reads);
  auto assembled = replace_code(cf, clinit, ir.value());
  if (!assembled) return assembled.error();
  return Ok{};
}

}  // namespace

Member* find_clinit(ClassFile& cf) {
  for (Member& m : cf.methods) {
    if (cf.member_name(m) == kClinit && cf.member_descriptor(m) == kClinitDesc) return &m;
  }
  return nullptr;
}

std::vector<std::string> site_table_parts(const std::string& class_name,
                                          const std::vector<MethodCalls>& methods,
                                          uint32_t clinit_shift) {
  const std::string header = "duplex-sites 2\nclass " + key_text(class_name) + "\n";
  std::vector<std::string> parts;
  std::string current = header;
  for (const MethodCalls& m : methods) {
    bool is_clinit = m.method == std::string(kClinit) + kClinitDesc;
    // Names as keys write them (no tab or line break), so a tab can part the twin's name
    // from the original's: a name may hold " as ", as Kotlin's and Spock's test names do.
    std::string method_line = "method " + key_text(m.method);
    if (!m.reported_as.empty()) method_line.append("\t").append(key_text(m.reported_as));
    method_line.append("\n");
    std::string block = method_line;
    for (const CallSite& c : m.calls) {
      uint32_t at = c.rewritten_offset + (is_clinit ? clinit_shift : 0);
      std::string line = "call " + std::to_string(at) + " " + std::to_string(c.original_offset) +
                         " " + std::to_string(c.line) + "\n";
      if (current.size() + block.size() + line.size() > kPartLimit) {
        parts.push_back(current + block);  // the method goes on in the next part
        current = header;
        block = method_line;
      }
      block += line;
    }
    current += block;
  }
  parts.push_back(std::move(current));
  return parts;
}

Status prepend_to_clinit(ClassFile& cf, std::vector<Insn> prefix, const ClinitLead& lead,
                         bool clinit_written) {
  if (Member* clinit = find_clinit(cf)) {
    // A rewritten <clinit> names the entries its rewrite added: read as the code as parsed,
    // those would be out of the pool, and the prefix lost.
    return prepend_to_existing_clinit(cf, *clinit, std::move(prefix), lead,
                                      clinit_written ? CodeSource::kWritten : CodeSource::kParsed);
  }
  return create_clinit(cf, std::move(prefix), lead);
}

Status add_site_registration(ClassFile& cf, const std::vector<MethodCalls>& methods,
                             std::string_view runtime_class, bool clinit_written,
                             const ClinitLead& lead, std::vector<std::string>& parts_out) {
  bool with_class = ldc_class_allowed(cf);
  // The table holds <clinit>'s own offsets, which the prefix shifts; its size depends on the
  // number of parts, which depends (barely) on the offsets: settle it in a few rounds.
  std::vector<std::string> parts = site_table_parts(cf.name(), methods, lead.bytes());
  for (int round = 0; round < 4; ++round) {
    uint32_t shift = lead.bytes() + prefix_size(parts.size(), with_class);
    auto next = site_table_parts(cf.name(), methods, shift);
    bool settled = next.size() == parts.size();
    parts = std::move(next);
    if (settled) break;
  }
  auto prefix = prefix_insns(cf, parts, runtime_class);
  if (!prefix) return prefix.error();
  Status s = prepend_to_clinit(cf, std::move(prefix.value()), lead, clinit_written);
  if (s) parts_out = std::move(parts);
  return s;
}

}  // namespace duplex
