import Foundation

/// The studio's page, built into the binary: nothing is fetched from anywhere. The page is a
/// shell; the script (`StudioAssets+Script.swift`) draws everything, putting stored text on the
/// page only as text (`textContent`), never as markup.
enum StudioAssets {
  static let page = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Kura Studio</title>
    <link rel="stylesheet" href="/studio.css">
    <script src="/studio.js" defer></script>
    </head>
    <body>
    <header>
      <a class="brand" href="#/">Kura Studio</a>
      <span id="store-name"></span>
      <span id="mode" class="badge">read-only</span>
      <span id="live" class="badge off" title="Changes saved by any process appear here">connecting…</span>
    </header>
    <div id="layout">
      <nav id="models"></nav>
      <main id="main"><p class="muted">Loading…</p></main>
    </div>
    </body>
    </html>
    """
}
