#include "gui/headless.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QRegularExpression>
#include <QTimer>

#include "gui/main_window.hpp"
#include "gui/models.hpp"
#include "gui/timeline_view.hpp"
#include "gui/views.hpp"

namespace ncp2::gui {

CommandLine parse_command_line(const QStringList& arguments) {
  CommandLine out;
  QCommandLineParser parser;
  parser.setApplicationDescription(
      "CARNIVAL: where the time of a run went, and who made whom wait (reads a database written by "
      "`ncp2 run --db`).");
  parser.addPositionalArgument(
      "FILE.db",
      "The CARNIVAL database to open, or a sweep (the folder of `ncp2 sweep --out DIR`, "
      "or its DIR/sweep.db).");
  const QCommandLineOption screenshot(
      "screenshot", "Render a view into OUT.png (OUT.svg: as SVG) without a display, then exit.", "OUT.png");
  const QCommandLineOption view(
      "view",
      "The view to render: main, scope, histogram, profile-map, matrix, cpwait, races, timeline, compare, "
      "sweep (a sweep's plots and points; what a sweep opens in).",
      "VIEW", "main");
  const QCommandLineOption scope("scope", "Select the scope of this name first.", "NAME");
  const QCommandLineOption size("size", "The window's size for --screenshot (default 1280x800).", "WxH");
  const QCommandLineOption node("node", "Show only this node's times.", "N");
  const QCommandLineOption compare("compare", "Compare the run with this one (the Compare view).", "B.db");
  const QCommandLineOption help({"h", "help"}, "Show this help.");
  const QCommandLineOption version("version", "Show the version.");
  for (const auto& o : {screenshot, view, scope, size, node, compare, help, version}) parser.addOption(o);
  // Before any QCoreApplication the parser does not know the program's name.
  out.help_text = parser.helpText().replace(QStringLiteral("<executable_name>"), QStringLiteral("carnival"));
  if (!parser.parse(arguments)) {
    out.error = parser.errorText();
    return out;
  }
  out.help = parser.isSet(help);
  out.version = parser.isSet(version);
  out.screenshot = parser.value(screenshot);
  out.view = parser.value(view);
  out.scope = parser.value(scope);
  out.compare = parser.value(compare);
  if (!view_from_name(out.view)) {
    out.error = QStringLiteral(
                    "unknown view '%1' (main, scope, histogram, profile-map, matrix, cpwait, races, "
                    "timeline, compare, sweep)")
                    .arg(out.view);
    return out;
  }
  if (out.view == QLatin1String("compare") && out.compare.isEmpty() && !out.screenshot.isEmpty()) {
    out.error = QStringLiteral("--view compare needs the second run: --compare B.db");
    return out;
  }
  if (parser.isSet(size)) {
    static const QRegularExpression wxh(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
    const auto m = wxh.match(parser.value(size));
    if (!m.hasMatch() || m.captured(1).toInt() < 200 || m.captured(2).toInt() < 150) {
      out.error = QStringLiteral("--size '%1' is not WIDTHxHEIGHT (at least 200x150), e.g. 1280x800")
                      .arg(parser.value(size));
      return out;
    }
    out.size = {m.captured(1).toInt(), m.captured(2).toInt()};
  }
  if (parser.isSet(node)) {
    bool ok = false;
    out.node = parser.value(node).toInt(&ok);
    if (!ok || out.node < 0) {
      out.error = QStringLiteral("--node '%1' is not a node number").arg(parser.value(node));
      return out;
    }
  }
  const QStringList files = parser.positionalArguments();
  if (files.size() > 1) {
    out.error = QStringLiteral("one database at a time (got %1 files)").arg(files.size());
    return out;
  }
  if (!files.isEmpty()) out.file = files.front();
  if (!out.screenshot.isEmpty() && out.file.isEmpty() && !out.help && !out.version)
    out.error = QStringLiteral("--screenshot needs a database: carnival --screenshot OUT.png FILE.db");
  return out;
}

namespace {

// Lets queued work (layouts, worker results) reach the window.
void settle() {
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
}

// A sweep is opened (no run): its view is the picture; the run's options do not apply.
QImage render_sweep(MainWindow& window, const CommandLine& options, QString* error) {
  if (!options.scope.isEmpty() || options.node >= 0 || !options.compare.isEmpty()) {
    *error = QStringLiteral("%1 is a sweep: --scope, --node and --compare are for a run").arg(options.file);
    return {};
  }
  window.show_view(ViewId::Sweep);
  settle();
  return window.grab().toImage();
}

}  // namespace

QImage render_view(MainWindow& window, const CommandLine& options, QString* error) {
  window.set_interactive(false);
  window.resize(options.size);
  window.show();
  settle();
  if (const QString e = window.open_file_and_wait(options.file); !e.isEmpty()) {
    *error = e;
    return {};
  }
  AnalysisContext* context = window.context();
  const auto analysis = context->analysis();
  if (!analysis) return render_sweep(window, options, error);
  if (options.node >= 0) {
    const auto ids = analysis->node_ids();
    if (std::find(ids.begin(), ids.end(), options.node) == ids.end()) {
      *error = QStringLiteral("%1 has no node %2").arg(options.file).arg(options.node);
      return {};
    }
    context->set_node_filter(options.node);
  }
  const ViewId view = *view_from_name(options.view);
  window.show_view(view);
  settle();
  if (!options.scope.isEmpty()) {
    const auto* st = analysis->scope_by_name(options.scope.toStdString());
    if (!st) {
      QStringList names;
      for (const auto& s : analysis->scopes()) names << QString::fromStdString(s.scope.name);
      *error = QStringLiteral("%1 has no scope named '%2' (scopes: %3)")
                   .arg(options.file, options.scope, names.join(QStringLiteral(", ")));
      return {};
    }
    context->select_scope(st->scope.id);
  } else if (context->scope() >= 0) {
    context->select_scope(context->scope());  // scroll to it at the final size
  }
  if (view == ViewId::Timeline) window.timeline()->load_and_wait();
  if (!options.compare.isEmpty()) {
    if (const QString e = window.compare_with_and_wait(options.compare); !e.isEmpty()) {
      *error = e;
      return {};
    }
    if (view != ViewId::Compare) window.show_view(view);
  }
  if (view == ViewId::Races && !analysis->summary().races.empty())
    context->select_race(analysis->summary().races.front().id);  // both of its lines marked
  if (view == ViewId::CPWait) {
    // Select the row (of the scope, if one is given) with the most synchronization delay, so
    // that the causes panel has something to say, and wait for its causes.
    CPWaitView* cpwait = window.cpwait();
    constexpr auto kSync = static_cast<std::size_t>(ncp2::carnival::WaitPart::SyncDelay);
    int row = -1;
    for (int r = 0; r < cpwait->model()->rowCount(); ++r) {
      const CPWaitRow* candidate = cpwait->model()->row_at(r);
      if (!options.scope.isEmpty() && static_cast<std::int64_t>(candidate->scope) != context->scope())
        continue;
      if (row < 0 || candidate->parts[kSync] > cpwait->model()->row_at(row)->parts[kSync]) row = r;
    }
    row = std::max(row, 0);
    if (cpwait->model()->rowCount() > 0) {
      QEventLoop loop;
      bool ready = false;  // the causes may be ready at once (already shown): quit() before exec() is lost
      QObject::connect(cpwait, &CPWaitView::causes_ready, &loop, [&] {
        ready = true;
        loop.quit();
      });
      QTimer::singleShot(30000, &loop, &QEventLoop::quit);
      cpwait->select_row(row);
      if (!ready) loop.exec();
    }
  }
  settle();
  return window.grab().toImage();
}

}  // namespace ncp2::gui
