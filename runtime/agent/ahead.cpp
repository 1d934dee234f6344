#include "runtime/agent/ahead.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstring>

#include "classfile/class_file.h"
#include "classfile/descriptors.h"

namespace duplex::agent {
namespace {

uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

AheadRewriter::AheadRewriter(Index index, FirstClass first_class, Selected selected,
                             Produce produce, size_t speculative_lead,
                             std::chrono::milliseconds forget_after)
    : index_(std::move(index)),
      first_class_(std::move(first_class)),
      selected_(std::move(selected)),
      produce_(std::move(produce)),
      speculative_lead_(speculative_lead),
      forget_after_(forget_after) {}

AheadRewriter::~AheadRewriter() {
  stop();
}

void AheadRewriter::start() {
  // The thread blocks every signal it can (it inherits the mask): the JVM's signals (SIGQUIT
  // for thread dumps, SIGTERM, ...) go to threads the JVM knows.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    thread_ = std::thread([this] { thread_main(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// Whatever ends the thread (quit, or an exception such as std::bad_alloc), no hook is left
// waiting for it and later hooks rewrite for themselves.
void AheadRewriter::thread_main() {
  uint64_t cpu0 = thread_cpu_ns();
  try {
    class_path_ = index_();
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.class_path_classes = class_path_.size();
    }
    std::string first = first_class_();
    if (!first.empty()) enqueue({first}, true);
    run(cpu0);
  } catch (...) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
    in_progress_.clear();
  }
  made_.notify_all();
}

void AheadRewriter::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  wake_.notify_all();
  made_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (!held_.empty()) stats_.held = held_.size();  // a second stop finds none left
  held_.clear();
  held_bytes_ = 0;
}

std::optional<CachedRewrite> AheadRewriter::take(const std::string& name,
                                                 std::span<const uint8_t> bytes) {
  std::optional<CachedRewrite> out;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (quit_) return out;
    loaded_.push_back(name);
    if (in_progress_ == name) {
      ++stats_.waited;
      made_.wait(lock, [&] { return in_progress_ != name || quit_; });
    }
    auto it = held_.find(name);
    if (it != held_.end() && it->second.original.size() == bytes.size() &&
        std::memcmp(it->second.original.data(), bytes.data(), bytes.size()) == 0) {
      held_bytes_ -= it->second.original.size() + it->second.rewrite.bytes.size();
      out = std::move(it->second.rewrite);
      held_.erase(it);
      ++stats_.hits;
    }
  }
  wake_.notify_one();
  return out;
}

AheadStats AheadRewriter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AheadStats s = stats_;
  if (!quit_) s.held = held_.size();
  return s;
}

bool AheadRewriter::wait_idle(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return made_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                        [&] { return quit_ || (idle_ && loaded_.empty()); });
}

void AheadRewriter::run(uint64_t cpu0) {
  for (;;) {
    std::vector<std::string> loaded;
    drop_stale();
    {
      std::unique_lock<std::mutex> lock(mu_);
      stats_.cpu_ns = thread_cpu_ns() - cpu0;
      auto has_work = [&] { return quit_ || !loaded_.empty() || ready(); };
      if (!has_work()) {
        idle_ = true;
        made_.notify_all();
        if (!wake_.wait_for(lock, forget_after_, has_work)) {
          stats_.forgotten += held_.size();
          held_.clear();
          held_bytes_ = 0;
          guessing_ = false;
          wake_.wait(lock, has_work);
        }
        idle_ = false;
      }
      if (quit_) return;
      if (!loaded_.empty()) guessing_ = true;
      loaded.swap(loaded_);
    }
    follow_loaded(std::move(loaded));
    std::string name;
    if (next(name)) rewrite_one(name);
  }
}

// Classes the program loaded: their references go to the front of the queue, the latest
// loaded first, since they are what the program reaches next.
void AheadRewriter::follow_loaded(std::vector<std::string> loaded) {
  for (const std::string& name : loaded) {
    Seen& state = seen_[name];
    bool rewritten_here = state == Seen::kRewritten;
    state = Seen::kLoaded;
    auto known = references_.find(name);
    if (known != references_.end()) {
      enqueue(known->second, true);
      references_.erase(known);
    } else if (!rewritten_here && class_path_.contains(name)) {
      if (auto bytes = class_path_.read(name)) enqueue(references(*bytes), true);
    }
  }
}

// Entries for classes rewritten or loaded since they were queued.
void AheadRewriter::drop_stale() {
  while (!queue_.empty()) {
    auto it = seen_.find(queue_.front().name);
    if (it != seen_.end() && it->second == Seen::kQueued) return;
    queue_.pop_front();
  }
}

// Whether the queue's first entry may be rewritten now (mu_ held, stale entries dropped).
bool AheadRewriter::ready() const {
  if (queue_.empty() || held_bytes_ >= kMaxHeldBytes) return false;
  return !queue_.front().speculative || (guessing_ && held_.size() < speculative_lead_);
}

bool AheadRewriter::next(std::string& name) {
  drop_stale();
  std::lock_guard<std::mutex> lock(mu_);
  if (!ready()) return false;
  name = std::move(queue_.front().name);
  queue_.pop_front();
  return true;
}

void AheadRewriter::rewrite_one(const std::string& name) {
  seen_[name] = Seen::kRewritten;
  auto bytes = class_path_.read(name);
  if (!bytes) return;
  std::vector<std::string> refs = references(*bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A hook already loading it rewrites it itself.
    if (quit_ || std::find(loaded_.begin(), loaded_.end(), name) != loaded_.end()) return;
    in_progress_ = name;
  }
  std::optional<CachedRewrite> made;
  try {
    made = produce_(*bytes);
  } catch (...) {  // e.g. std::bad_alloc: the hook tries again and reports
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_progress_.clear();
    if (made) {
      held_bytes_ += bytes->size() + made->bytes.size();
      held_.insert_or_assign(name, Held{std::move(*bytes), std::move(*made)});
      ++stats_.rewritten;
    }
  }
  made_.notify_all();
  enqueue(refs, false);
  references_.emplace(name, std::move(refs));
}

// The classes a class names in its constant pool (array classes by their element class),
// superclass and interfaces first: they load before it.
std::vector<std::string> AheadRewriter::references(std::span<const uint8_t> bytes) const {
  std::vector<std::string> out;
  auto cf = ClassFile::parse(bytes);
  if (!cf) return out;
  const ConstantPool& pool = cf->pool;
  std::unordered_set<std::string_view> added;
  auto add = [&](uint16_t index) {
    auto name = pool.class_name(index);
    if (!name) return;
    std::string_view element = element_class(*name);
    if (!element.empty() && added.insert(element).second) out.emplace_back(element);
  };
  add(cf->super_class);
  for (uint16_t i : cf->interfaces) add(i);
  for (uint32_t i = 1; i < pool.count(); ++i) {
    if (i != cf->this_class) add(static_cast<uint16_t>(i));
  }
  return out;
}

void AheadRewriter::enqueue(const std::vector<std::string>& names, bool front) {
  auto consider = [&](const std::string& name) {
    auto [it, fresh] = seen_.try_emplace(name, Seen::kQueued);
    if (fresh && (!class_path_.contains(name) || !selected_(name))) {
      it->second = Seen::kLoaded;  // never to be rewritten here
      return;
    }
    if (it->second != Seen::kQueued) return;
    if (front) {
      queue_.push_front({name, false});
    } else if (fresh) {
      queue_.push_back({name, true});
    }
  };
  if (front) {
    for (auto it = names.rbegin(); it != names.rend(); ++it) consider(*it);
  } else {
    for (const std::string& name : names) consider(name);
  }
}

}  // namespace duplex::agent
