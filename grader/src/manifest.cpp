#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "grader.hpp"

namespace kindling::grader {

std::string Task::suite() const {
  std::string s = id;
  const auto dot = s.find('.');
  if (dot != std::string::npos) s[dot] = '_';
  return s;
}

std::string Task::source(const std::filesystem::path& source_dir, const std::string& tree,
                         const std::string& week_folder) const {
  const std::string stem = tree + "/" + week_folder + "/src/tasks/" + id.substr(id.find('.') + 1);
  return std::filesystem::exists(source_dir / (stem + ".cu")) ? stem + ".cu" : stem + ".cpp";
}

const Week& Manifest::week(const std::string& id) const {
  for (const auto& w : weeks)
    if (w.id == id) return w;
  throw std::out_of_range("no week '" + id + "' in the manifest");
}

const Task* Manifest::find(const std::string& task_id) const {
  for (const auto& t : tasks)
    if (t.id == task_id) return &t;
  return nullptr;
}

Manifest read_manifest(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read the task manifest " + file.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
  Manifest m;
  for (const auto& w : j.at("weeks"))
    m.weeks.push_back({w.at("id").get<std::string>(), w.at("folder").get<std::string>(), w.value("title", "")});
  for (const auto& t : j.at("tasks")) {
    Task task;
    task.id = t.at("id").get<std::string>();
    task.title = t.value("title", task.id);
    task.week = task.id.substr(0, task.id.find('.'));
    task.points = t.value("points", 0.0);
    task.perf_points = t.value("perf_points", 0.0);
    if (t.contains("hints")) {
      task.hints = t.at("hints").get<std::vector<std::string>>();
    } else if (t.contains("hint")) {
      task.hints = {t.at("hint").get<std::string>()};
    }
    task.lecture = t.value("lecture", "");
    task.visibility = t.value("visibility", "visible");
    if (task.visibility != "visible" && task.visibility != "hidden" && task.visibility != "after_due_date" &&
        task.visibility != "after_published")
      throw std::runtime_error("task " + task.id + ": visibility must be visible, hidden, after_due_date or " +
                               "after_published, not '" + task.visibility + "'");
    if (t.contains("perf")) {
      const auto& p = t.at("perf");
      task.perf = PerfSpec{p.at("bench").get<std::string>(),   p.at("filter").get<std::string>(),
                           p.at("counter").get<std::string>(), p.at("full").get<double>(),
                           p.at("zero").get<double>(),         p.value("needs_gpu", false),
                           p.value("gpu_bench", std::string())};
    }
    if (task.perf_points > 0 && !task.perf)
      throw std::runtime_error(file.string() + ": task " + task.id + " has perf_points but no \"perf\" benchmark");
    if (t.contains("needs")) task.needs = t.at("needs").get<std::vector<std::string>>();
    m.tasks.push_back(std::move(task));
  }
  // A need is another task of the same week (earlier weeks are needed as a rule).
  std::map<std::string, const Task*> by_id;
  for (const auto& task : m.tasks) by_id[task.id] = &task;
  for (const auto& task : m.tasks)
    for (const auto& need : task.needs) {
      const auto other = by_id.find(need);
      if (other == by_id.end() || other->second->week != task.week || need == task.id)
        throw std::runtime_error(file.string() + ": task " + task.id + " needs '" + need +
                                 "', which is not another task of " + task.week);
    }
  // Whether `to` is reached from `from` through needs.
  const auto reaches = [&](const std::string& from, const std::string& to) {
    std::set<std::string> seen{from};
    std::vector<std::string> todo{from};
    while (!todo.empty()) {
      const std::string at = todo.back();
      todo.pop_back();
      for (const auto& n : by_id.at(at)->needs) {
        if (n == to) return true;
        if (seen.insert(n).second) todo.push_back(n);
      }
    }
    return false;
  };
  for (auto& task : m.tasks)
    for (const auto& need : task.needs)
      if (reaches(need, task.id)) task.mutual.push_back(need);
  return m;
}

std::vector<Task> order_by_needs(const std::vector<Task>& tasks) {
  // Repeatedly take the first task whose needs among `tasks` are all taken (a need that needs
  // it too does not count): the given order, except where a need comes later. Whatever is left
  // when nothing is ready (not possible for tasks read by read_manifest) keeps its order.
  std::vector<Task> out;
  std::vector<bool> taken(tasks.size(), false);
  std::set<std::string> done, present;
  for (const auto& t : tasks) present.insert(t.id);
  while (out.size() < tasks.size()) {
    bool progress = false;
    for (std::size_t i = 0; i < tasks.size() && !progress; ++i) {
      if (taken[i]) continue;
      const Task& t = tasks[i];
      const bool ready = std::all_of(t.needs.begin(), t.needs.end(), [&](const std::string& n) {
        return !present.count(n) || done.count(n) || std::find(t.mutual.begin(), t.mutual.end(), n) != t.mutual.end();
      });
      if (!ready) continue;
      taken[i] = progress = true;
      done.insert(tasks[i].id);
      out.push_back(tasks[i]);
    }
    if (!progress)
      for (std::size_t i = 0; i < tasks.size(); ++i)
        if (!taken[i]) {
          taken[i] = true;
          out.push_back(tasks[i]);
        }
  }
  return out;
}

std::vector<Task> select_tasks(const Manifest& m, const std::vector<std::string>& selection) {
  if (selection.empty()) return m.tasks;
  std::vector<Task> out;
  std::set<std::string> taken;
  for (const auto& sel : selection) {
    bool matched = false;
    for (const auto& t : m.tasks) {
      if (t.id == sel || t.week == sel) {
        matched = true;
        if (taken.insert(t.id).second) out.push_back(t);
      }
    }
    if (!matched) throw std::invalid_argument("no task or week named '" + sel + "' in the manifest");
  }
  return out;
}

}  // namespace kindling::grader
