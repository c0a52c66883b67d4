extension StudioAssets {
  static let style = """
    :root { --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --bg: #fbfbfd; --accent: #0a5cc2;
      --nil: #8e3a9e; --changed: #fff3b0; --bad: #b3261e; font-size: 14px; }
    * { box-sizing: border-box; }
    body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
      background: var(--bg); }
    header { display: flex; gap: 12px; align-items: center; padding: 10px 16px;
      border-bottom: 1px solid var(--line); background: #fff; }
    .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
    #store-name { color: var(--muted); font-family: ui-monospace, monospace; overflow: hidden;
      text-overflow: ellipsis; white-space: nowrap; flex: 1; }
    .badge { border: 1px solid var(--line); border-radius: 10px; padding: 1px 8px; font-size: 12px;
      color: var(--muted); }
    #live.on { color: #1a7f37; border-color: #1a7f37; }
    #layout { display: flex; min-height: calc(100vh - 45px); }
    nav { width: 220px; border-right: 1px solid var(--line); padding: 12px 0; background: #fff;
      flex-shrink: 0; }
    nav a { display: flex; justify-content: space-between; padding: 5px 16px; color: var(--fg);
      text-decoration: none; }
    nav a:hover, nav a.current { background: #eef3fb; }
    nav .count { color: var(--muted); font-variant-numeric: tabular-nums; }
    nav h3 { margin: 12px 16px 4px; font-size: 11px; text-transform: uppercase; color: var(--muted); }
    main { flex: 1; padding: 16px 20px; overflow-x: auto; min-width: 0; }
    h1 { font-size: 20px; margin: 0 0 12px; }
    h2 { font-size: 16px; margin: 20px 0 8px; }
    a { color: var(--accent); }
    table { border-collapse: collapse; background: #fff; }
    th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top;
      max-width: 360px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    th { background: #f2f2f5; font-weight: 600; }
    th.sortable { cursor: pointer; user-select: none; }
    th .arrow { color: var(--accent); }
    .kind { color: var(--muted); font-weight: 400; font-size: 11px; }
    td.number { text-align: right; font-variant-numeric: tabular-nums; }
    .mono, td.uuid, td.bytes, td.json { font-family: ui-monospace, monospace; font-size: 12px; }
    .nil { color: var(--nil); font-style: italic; }
    .empty { color: var(--muted); font-style: italic; }
    tr.changed td { background: var(--changed); transition: background 2s; }
    .toolbar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
    .filter { display: flex; gap: 4px; align-items: center; }
    input, select, button { font: inherit; padding: 3px 6px; border: 1px solid var(--line);
      border-radius: 4px; background: #fff; }
    button { cursor: pointer; }
    button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
    button:disabled { opacity: 0.4; cursor: default; }
    .status { color: var(--muted); margin: 6px 0; }
    .status.memory { color: #8a5300; }
    .status.on { color: #1a7f37; }
    .status.off { color: #8a5300; }
    .status.error { color: #b42318; }
    .error { color: var(--bad); margin: 8px 0; white-space: pre-wrap; }
    .card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px;
      margin-bottom: 16px; }
    .card h2 { margin-top: 0; }
    dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
    dl.facts dt { color: var(--muted); }
    dl.facts dd { margin: 0; }
    ul.plain { list-style: none; padding: 0; margin: 4px 0; }
    ul.plain li { margin: 2px 0; }
    a.referrer-link { margin-right: 6px; }
    #delete-preview.refused { color: var(--bad); }
    .rule { font-size: 12px; border-radius: 3px; padding: 0 4px; background: #eee; }
    .rule.cascade { background: #fde2e1; } .rule.deny { background: #e3e8ff; }
    .history-entry { border-bottom: 1px solid var(--line); padding: 6px 0; }
    .history-entry .ids a { margin-right: 6px; font-family: ui-monospace, monospace; font-size: 12px; }
    #batch { position: fixed; right: 16px; bottom: 16px; width: 380px; max-height: 60vh;
      overflow-y: auto; box-shadow: 0 4px 16px rgba(0,0,0,0.15); }
    #batch ol { padding-left: 20px; margin: 4px 0; }
    .preview-line { color: var(--muted); margin: 2px 0; }
    .preview-line.refused { color: var(--bad); }
    .field-error { color: var(--bad); margin-left: 6px; white-space: normal; }
    .edit-value { min-width: 260px; }
    pre.json-view { background: #f6f8fa; padding: 8px; max-height: 400px; overflow: auto;
      font-family: ui-monospace, monospace; font-size: 12px; }
    .ins { color: #1a7f37; } .upd { color: #8a5300; } .del { color: var(--bad); }
    """
}
