// Which constant-pool entries a class uses, for shrinking the pool of a class made from a copy
// of another class's pool, or of a class that lost code to another (ConstantPool::keep_only),
// without renumbering anything.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "classfile/class_file.h"

namespace duplex {

// A flag per pool index: the entries that `cf` names (its own and its super class, its
// members' names and descriptors, every attribute's name, what its code and the attributes
// below name) and, transitively, what those refer to. Read are: methods' Code (instructions,
// exception table, StackMapTable, LineNumberTable, LocalVariableTable and
// LocalVariableTypeTable), and the class's SourceFile, NestHost, NestMembers and
// BootstrapMethods. Attributes named in `index_free` are known to hold no pool index. nullopt
// when the class has fields, interfaces or any other attribute (an annotation, say), or
// something malformed: then every entry must stay.
std::optional<std::vector<bool>> pool_entries_used(
    const ClassFile& cf, std::span<const std::string_view> index_free = {});

// The same for a class whose entries below `first_added` stay, used or not (a class parsed,
// then edited: `cf.parsed_pool_count()`), so that only the entries added since need to be
// accounted for: every entry below `first_added` is flagged. Fields, interfaces and attributes
// it cannot read are allowed when they came with the parsed class (an attribute named by an
// entry below `first_added` can name nothing else); an unread attribute named by an added
// entry, unless named in `index_free`, gives nullopt.
std::optional<std::vector<bool>> pool_entries_used_since(
    const ClassFile& cf, uint32_t first_added, std::span<const std::string_view> index_free = {});

}  // namespace duplex
