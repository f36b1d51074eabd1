#pragma once
// The CARNIVAL window: the source view beside the Profile Map, CPWait Map, data races, a scope's
// profile per processor and its category histogram (tabs); below them, shown on demand, the
// Timeline and a comparison with another run (File > Compare with…); a node filter; a banner for runs that
// need a warning; the category legend always visible; File > Open and recent files (QSettings). Files are
// read on worker threads; the window stays responsive while they load. A sweep (`ncp2 sweep`'s folder
// or its sweep.db) opens in the Sweep tab of the same pane: its points open as runs above.
#include <QMainWindow>
#include <QStringList>

#include "gui/analysis_context.hpp"
#include "gui/background_task.hpp"

class QComboBox;
class QLabel;
class QMenu;
class QTabWidget;
class QSplitter;
class QTableView;

namespace ncp2::gui {

class CategoryLegend;
class CompareView;
class CPWaitView;
class HistogramView;
class ProfileMapView;
class RacesView;
class SweepView;
class ScopeProfileView;
class SourcePanel;
class TimelineView;

// What loading a file on a worker thread produced.
struct LoadResult {
  QString path;
  std::shared_ptr<const RunSummary> summary;  // null on error
  QString error;
};
LoadResult load_file(const QString& path);  // never throws

enum class ViewId { Main, Scope, Histogram, ProfileMap, Matrix, CPWait, Races, Timeline, Compare, Sweep };
// main|scope|histogram|profile-map|matrix|cpwait|races|timeline|compare|sweep
std::optional<ViewId> view_from_name(const QString& name);
// What File > Export draws: the whole window, the source view (with its choosers), or the
// analysis tab in front.
enum class ExportTarget { Window, Source, Analysis };

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  [[nodiscard]] AnalysisContext* context() const { return context_; }
  [[nodiscard]] SourcePanel* source_panel() const { return source_; }
  [[nodiscard]] ProfileMapView* profile_map() const { return profile_map_; }
  [[nodiscard]] CPWaitView* cpwait() const { return cpwait_; }
  [[nodiscard]] RacesView* races() const { return races_; }
  [[nodiscard]] ScopeProfileView* scope_profile() const { return scope_profile_; }
  [[nodiscard]] HistogramView* histogram() const { return histogram_; }
  [[nodiscard]] TimelineView* timeline() const { return timeline_; }
  [[nodiscard]] CompareView* comparison() const { return compare_; }
  [[nodiscard]] SweepView* sweep_view() const { return sweep_; }
  // The pane under the source and the tabs: the Timeline and the comparison (hidden until used).
  [[nodiscard]] QTabWidget* lower_tabs() const { return lower_tabs_; }
  [[nodiscard]] CategoryLegend* legend() const { return legend_; }
  [[nodiscard]] QLabel* banner() const { return banner_; }
  [[nodiscard]] QComboBox* node_chooser() const { return nodes_; }
  [[nodiscard]] QTabWidget* tabs() const { return tabs_; }
  [[nodiscard]] const QString& current_file() const { return path_; }
  [[nodiscard]] bool is_loading() const { return loader_.running(); }

  // Dialogs on errors (off in tests and headless use, where the signals and banner say it).
  void set_interactive(bool on) { interactive_ = on; }
  void show_view(ViewId view);

  // Starts loading on a worker thread; run_opened or open_failed follows. A sweep (a folder, or a
  // sweep database) is read at once: sweep_opened or open_failed.
  void open_file(const QString& path);
  // Loads (still on a worker thread) and waits, including the integrity check; returns the
  // error, or an empty string. For headless use.
  QString open_file_and_wait(const QString& path);

  // File > Export without its dialogs: an image (SVG when the path ends in .svg, else PNG) or
  // the table in front as CSV. Each returns an empty string when written, else why not.
  QString export_image(ExportTarget target, const QString& path);
  QString export_table(const QString& path);
  [[nodiscard]] QTableView* current_table() const;  // the analysis tab's main table
  // Compares the open run (A) with another file (B) in the Compare tab; compare_with_and_wait
  // returns the error (or an empty string).
  void compare_with(const QString& path);
  QString compare_with_and_wait(const QString& path);

  [[nodiscard]] static QStringList recent_files();
  static constexpr int kMaxRecentFiles = 8;

 signals:
  void run_opened(const QString& path);
  void sweep_opened(const QString& path);
  void open_failed(const QString& path, const QString& message);
  void integrity_checked(const QString& path, const QString& error);  // error empty: sound

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void split_for_code();  // the source/analysis split of the main and races views
  bool split_done_ = false;
  void build_menus();
  void build_export_menu(QMenu* file);
  void build_edit_menu();
  void report_export(const QString& path, const QString& error);
  void build_lower_pane();  // the Timeline and Compare tabs under the source and the tabs
  void choose_file();
  void choose_comparison();
  void choose_sweep_folder();
  QString open_sweep(const QString& path);  // the error, or ""
  void show_lower(QWidget* view);
  void show_run_views(bool on);  // the source, the analysis tabs, the Timeline and Compare tabs
  void loaded(const LoadResult& result);
  void integrity_done(const QString& path, const QString& error);
  void remember(const QString& path);
  void refill_recent_menu();
  void refill_nodes();
  void update_banner();
  void fail(const QString& path, const QString& message);

  AnalysisContext* context_;
  SourcePanel* source_;
  ProfileMapView* profile_map_;
  CPWaitView* cpwait_;
  RacesView* races_;
  ScopeProfileView* scope_profile_;
  HistogramView* histogram_;
  TimelineView* timeline_ = nullptr;  // build_lower_pane()
  CompareView* compare_ = nullptr;
  SweepView* sweep_ = nullptr;
  QTabWidget* lower_tabs_ = nullptr;
  QSplitter* outer_;
  CategoryLegend* legend_;
  QTabWidget* tabs_;
  QSplitter* split_;
  QLabel* banner_;
  QLabel* run_label_;
  QComboBox* nodes_;
  QMenu* recent_menu_ = nullptr;
  QString path_;
  QStringList warnings_;
  QString integrity_error_;
  bool interactive_ = true;
  BackgroundTask<LoadResult> loader_;
  BackgroundTask<QString> checker_;
  QString checking_;
};

}  // namespace ncp2::gui
