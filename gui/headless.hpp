#pragma once
// Headless use: `carnival --screenshot OUT.png [--view V] [--scope NAME] [--size WxH]
// [--compare B.db] FILE.db`
// renders one view of a database into a PNG without a display and exits. The command line is
// parsed before any QApplication exists (so that the platform can still be chosen).
#include <optional>

#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

namespace ncp2::gui {

class MainWindow;
enum class ViewId;

struct CommandLine {
  QString file;        // FILE.db, may be empty (interactive use)
  QString screenshot;  // OUT.png: headless
  QString view = QStringLiteral("main");
  QString scope;    // a scope name to select
  QString compare;  // --compare B.db: compare the run with B (the Compare view)
  QSize size{1280, 800};
  int node = -1;  // --node N: the node filter
  bool help = false;
  bool version = false;
  QString help_text;
  QString error;  // a usage error (exit code 2)
};
// `arguments` includes the program name first.
CommandLine parse_command_line(const QStringList& arguments);

// Loads the file into the window, selects the view, scope and node, lays the window out at
// `size` and grabs it. On bad input returns a null image and sets `error`.
QImage render_view(MainWindow& window, const CommandLine& options, QString* error);

}  // namespace ncp2::gui
