#include "classfile/bootstrap_table.h"

#include <string>

#include "classfile/bytes.h"

namespace duplex {

namespace {
constexpr const char* kAttributeName = "BootstrapMethods";
}

Result<BootstrapTable> BootstrapTable::read(const ClassFile& cf) {
  BootstrapTable table;
  if (const Attribute* attr = cf.find_attribute(cf.attributes, kAttributeName)) {
    auto methods = decode_bootstrap_methods(attr->data);
    if (!methods) return methods.error();
    table.methods_ = std::move(methods.value());
  }
  // A constant that names a bootstrap method past the end of the table makes the JVM refuse
  // the class; a table grown past that index would make it load. Such a class must stay as
  // it is, so it is refused here.
  for (uint32_t i = 1; i < cf.pool.count(); ++i) {
    CpTag tag = cf.pool.tag(i);
    if (tag != CpTag::kInvokeDynamic && tag != CpTag::kDynamic) continue;
    auto ref = cf.pool.dynamic_ref(i);
    if (!ref || ref->bootstrap_index >= table.methods_.size()) {
      return Error::plain("constant #" + std::to_string(i) + " names bootstrap method " +
                          (ref ? std::to_string(ref->bootstrap_index) : std::string("?")) +
                          ", but the class has " + std::to_string(table.methods_.size()));
    }
  }
  return table;
}

Result<uint16_t> BootstrapTable::add(const BootstrapMethod& method) {
  // Linear: a class has few bootstrap methods, and each add is once per new call site kind.
  for (size_t i = 0; i < methods_.size(); ++i) {
    const BootstrapMethod& m = methods_[i];
    if (m.method_handle == method.method_handle && m.arguments == method.arguments)
      return static_cast<uint16_t>(i);
  }
  if (methods_.size() >= 65535)
    return Error::plain("the BootstrapMethods attribute is full (65535 entries)");
  if (method.arguments.size() > 65535)
    return Error::plain("a bootstrap method takes at most 65535 arguments");
  methods_.push_back(method);
  changed_ = true;
  return static_cast<uint16_t>(methods_.size() - 1);
}

Status BootstrapTable::write(ClassFile& cf) const {
  if (!changed_) return Ok{};
  std::vector<uint8_t> bytes = encode_bootstrap_methods(methods_);
  if (Attribute* attr = cf.find_attribute(cf.attributes, kAttributeName)) {
    attr->set_data(std::move(bytes));
    return Ok{};
  }
  auto name = cf.pool.add_utf8(kAttributeName);
  if (!name) return name.error();
  Attribute attr;
  attr.name_index = *name;
  attr.set_data(std::move(bytes));
  cf.attributes.push_back(std::move(attr));
  return Ok{};
}

std::vector<uint8_t> encode_bootstrap_methods(const std::vector<BootstrapMethod>& methods) {
  ByteWriter out;
  out.u2(static_cast<uint32_t>(methods.size()));
  for (const BootstrapMethod& m : methods) {
    out.u2(m.method_handle);
    out.u2(static_cast<uint32_t>(m.arguments.size()));
    for (uint16_t a : m.arguments) out.u2(a);
  }
  return out.take();
}

}  // namespace duplex
