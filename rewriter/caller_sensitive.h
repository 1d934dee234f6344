// Caller-sensitive JDK methods (@jdk.internal.reflect.CallerSensitive): the class that calls
// them changes what they do, so code the rewriter moves to another class must not call them.
//
// kCallerSensitiveInherited: those that a call naming an application class can reach: public
// or protected members of the JDK's non-final classes, which such a class inherits
// (`registerAsParallelCapable()` called as `MyLoader.registerAsParallelCapable()`). Calls naming
// a JDK class are never redirected at all. Why: a sampled call that goes through a method handle
// (rewriter/sampled_calls.h) makes a caller-sensitive method see an injected invoker class as
// its caller, not the class that made the call: JRuby's class loader then failed to register as
// parallel capable (the invoker is not a ClassLoader), and a field updater or a resource bundle
// could fail or differ the same way. Such calls keep their instruction.
//
// The list is JDK 17's (every jmod scanned for the annotation, 2026-11-27); a later JDK's
// additions are missed until they are added here.
#pragma once

#include <string_view>

namespace duplex {

// "name" + "descriptor", sorted.
inline constexpr std::string_view kCallerSensitiveInherited[] = {
    "allocateMemory(J)Ljdk/incubator/foreign/MemoryAddress;",
    "asInterfaceInstance(Ljava/lang/Class;Ljava/lang/invoke/MethodHandle;)Ljava/lang/Object;",
    "asSegment(JLjava/lang/Runnable;Ljdk/incubator/foreign/ResourceScope;)Ljdk/incubator/foreign/"
    "MemorySegment;",
    "asSegment(JLjdk/incubator/foreign/ResourceScope;)Ljdk/incubator/foreign/MemorySegment;",
    "canAccess(Ljava/lang/Object;)Z",
    "clearCache()V",
    "deregisterDriver(Ljava/sql/Driver;)V",
    "drivers()Ljava/util/stream/Stream;",
    "forClass()Ljava/lang/Class;",
    "freeMemory(Ljdk/incubator/foreign/MemoryAddress;)V",
    "getAnonymousLogger(Ljava/lang/String;)Ljava/util/logging/Logger;",
    "getBundle(Ljava/lang/String;)Ljava/util/ResourceBundle;",
    "getBundle(Ljava/lang/String;Ljava/lang/Module;)Ljava/util/ResourceBundle;",
    "getBundle(Ljava/lang/String;Ljava/util/Locale;)Ljava/util/ResourceBundle;",
    "getBundle(Ljava/lang/String;Ljava/util/Locale;Ljava/lang/ClassLoader;)Ljava/util/"
    "ResourceBundle;",
    "getBundle(Ljava/lang/String;Ljava/util/Locale;Ljava/lang/ClassLoader;Ljava/util/"
    "ResourceBundle$Control;)Ljava/util/ResourceBundle;",
    "getBundle(Ljava/lang/String;Ljava/util/Locale;Ljava/lang/Module;)Ljava/util/ResourceBundle;",
    "getBundle(Ljava/lang/String;Ljava/util/Locale;Ljava/util/ResourceBundle$Control;)Ljava/util/"
    "ResourceBundle;",
    "getBundle(Ljava/lang/String;Ljava/util/ResourceBundle$Control;)Ljava/util/ResourceBundle;",
    "getCallerClass()Ljava/lang/Class;",
    "getConnection(Ljava/lang/String;)Ljava/sql/Connection;",
    "getConnection(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)Ljava/sql/Connection;",
    "getConnection(Ljava/lang/String;Ljava/util/Properties;)Ljava/sql/Connection;",
    "getContextClassLoader()Ljava/lang/ClassLoader;",
    "getDriver(Ljava/lang/String;)Ljava/sql/Driver;",
    "getDrivers()Ljava/util/Enumeration;",
    "getFields()[Ljava/lang/reflect/Field;",
    "getInstance()Ljdk/incubator/foreign/CLinker;",
    "getInvocationHandler(Ljava/lang/Object;)Ljava/lang/reflect/InvocationHandler;",
    "getLogger(Ljava/lang/String;)Ljava/util/logging/Logger;",
    "getLogger(Ljava/lang/String;Ljava/lang/String;)Ljava/util/logging/Logger;",
    "getPackage(Ljava/lang/String;)Ljava/lang/Package;",
    "getPackages()[Ljava/lang/Package;",
    "getParent()Ljava/lang/ClassLoader;",
    "getPlatformClassLoader()Ljava/lang/ClassLoader;",
    "getProxyClass(Ljava/lang/ClassLoader;[Ljava/lang/Class;)Ljava/lang/Class;",
    "getSystemClassLoader()Ljava/lang/ClassLoader;",
    "getType()Ljava/lang/Class;",
    "globalNativeSegment()Ljdk/incubator/foreign/MemorySegment;",
    "invokeDefault(Ljava/lang/Object;Ljava/lang/reflect/Method;[Ljava/lang/Object;)Ljava/lang/"
    "Object;",
    "load(Ljava/lang/String;)V",
    "loadLibrary(Ljava/lang/String;)V",
    "loaderLookup()Ljdk/incubator/foreign/SymbolLookup;",
    "lookup()Ljava/lang/invoke/MethodHandles$Lookup;",
    "newProxyInstance(Ljava/lang/ClassLoader;[Ljava/lang/Class;Ljava/lang/reflect/"
    "InvocationHandler;)Ljava/lang/Object;",
    "newUpdater(Ljava/lang/Class;Ljava/lang/Class;Ljava/lang/String;)Ljava/util/concurrent/atomic/"
    "AtomicReferenceFieldUpdater;",
    "newUpdater(Ljava/lang/Class;Ljava/lang/String;)Ljava/util/concurrent/atomic/"
    "AtomicIntegerFieldUpdater;",
    "newUpdater(Ljava/lang/Class;Ljava/lang/String;)Ljava/util/concurrent/atomic/"
    "AtomicLongFieldUpdater;",
    "ofAddress(Ljdk/incubator/foreign/MemoryAddress;)Ljdk/incubator/foreign/CLinker$VaList;",
    "ofAddress(Ljdk/incubator/foreign/MemoryAddress;Ljdk/incubator/foreign/ResourceScope;)Ljdk/"
    "incubator/foreign/CLinker$VaList;",
    "registerAsParallelCapable()Z",
    "setAccessible(Z)V",
    "setAccessible([Ljava/lang/reflect/AccessibleObject;Z)V",
    "systemLookup()Ljdk/incubator/foreign/SymbolLookup;",
    "toJavaString(Ljdk/incubator/foreign/MemoryAddress;)Ljava/lang/String;",
    "trySetAccessible()Z",
};

// The caller-sensitive JDK methods whose answer depends on the caller class itself, beyond its
// loader, module, package and protection domain (which a class of the same loader and package
// shares): the reflective accesses check the member against the caller (a private member of
// another class outside its nest, or a protected member of a superclass in another package, is
// refused: IllegalAccessException), a field updater of a protected field takes the caller as
// the receivers' type, and the look-ups return the caller or a lookup on it. A call of one of
// these from a twin moved to another class (rewriter/twin_nest.h) would see that class. The
// others of JDK 17 (Class.forName, ServiceLoader.load, ResourceBundle.getBundle, ...) look at
// the caller's loader or module, or only at it under a security manager.
inline bool sees_its_caller_class(std::string_view owner, std::string_view name,
                                  std::string_view descriptor) {
  if (name == "getCallerClass") return true;  // Reflection's and StackWalker's
  if (name == "canAccess") return owner.starts_with("java/lang/reflect/");
  if (owner == "java/lang/invoke/MethodHandles") return name == "lookup";
  if (owner == "java/lang/reflect/Method") return name == "invoke";
  if (owner == "java/lang/reflect/Constructor" || owner == "java/lang/Class")
    return name == "newInstance";
  if (owner == "java/lang/reflect/Field") {
    // get, set and their primitive forms (getInt, setLong, ...), which take the receiver
    // first; getName, getType and the other getters take nothing or a Class.
    return (name.starts_with("get") || name.starts_with("set")) &&
           descriptor.starts_with("(Ljava/lang/Object;");
  }
  // AtomicIntegerFieldUpdater's, AtomicLongFieldUpdater's and AtomicReferenceFieldUpdater's
  // (named with their class, or a subclass of it).
  return name == "newUpdater" &&
         descriptor.find(")Ljava/util/concurrent/atomic/Atomic") != std::string_view::npos;
}

// Bootstrap methods of the JDK that use the caller's lookup only for access to what their
// arguments name, so that a twin class, which has the same access as its host (a nestmate, or
// a class of its package with bridges for the rest), gets the same call site or constant:
// lambdas (LambdaMetafactory.metafactory; not altMetafactory, whose serializable lambdas record
// the caller as their capturing class and are read back through its $deserializeLambda$),
// string concatenation, records' methods, switches on patterns, and ConstantBootstraps. Any other
// bootstrap (a language runtime's: Groovy's and JRuby's choose methods by their caller class)
// may answer a twin class differently.
inline bool bootstrap_ignores_caller_class(std::string_view owner, std::string_view name) {
  if (owner == "java/lang/invoke/LambdaMetafactory") return name == "metafactory";
  return owner == "java/lang/invoke/StringConcatFactory" ||
         owner == "java/lang/runtime/ObjectMethods" ||
         owner == "java/lang/runtime/SwitchBootstraps" ||
         owner == "java/lang/invoke/ConstantBootstraps";
}

inline bool is_caller_sensitive_inherited(std::string_view name, std::string_view descriptor) {
  for (std::string_view sig : kCallerSensitiveInherited) {
    if (sig.size() == name.size() + descriptor.size() && sig.starts_with(name) &&
        sig.substr(name.size()) == descriptor)
      return true;
  }
  return false;
}

}  // namespace duplex
