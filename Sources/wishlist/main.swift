import Foundation
import Kura
import KuraCLI
import KuraStoreCLI
import KuraSync
import KuraSyncCore

// `wishlist`: seed §3's travel wish list on Kura's model store — trips with activities
// (cascade on delete), a live "recent trips" query, full-text search, and the activity sort
// order remembered in preferences.

/// `wishlist path`: where the store is.
let pathCommand = Command(
  name: "path",
  abstract:
    "Prints where the store is: the file's path, or the PostgreSQL database, server and user "
    + "(never the password).",
  options: [WishlistStore.option],
  supportsJSON: true,
  run: { invocation in
    let store = try WishlistStore.location(invocation)
    if invocation.json { return try invocation.printJSON(store) }
    print(visible(store.description))
  })

let wishlist = Command(
  name: "wishlist",
  abstract: "Keeps a wish list of trips and their activities.",
  discussion: """
    The trips are kept in the app's default store (default.store in its data folder) unless \
    --store or the environment variable KURA_STORE_URL names another store: a file path, or a \
    PostgreSQL database as a URL (postgresql://user@host/app) or a connection string \
    ("host=/run/postgresql dbname=app"), which several machines can share; `recent --watch` \
    then sees trips added on any of them. --store wins over KURA_STORE_URL. Give a password \
    through ~/.pgpass (PGPASSFILE) or PGPASSWORD rather than in the URL; Kura never prints it. \
    The activity sort order stays in this machine's preferences.

    With --sync <url> and --sync-token (or KURA_SYNC_URL and KURA_SYNC_TOKEN) the store syncs \
    through a Kura sync server (`kura sync serve`): each command first brings in what other \
    stores saved, and sends what it saved when it ends; `recent --watch` keeps syncing. While \
    the server can't be reached, commands work on the local store and say so; the saves are \
    sent by a later command. `wishlist sync status` shows the pending saves and the last sync.
    """,
  subcommands: [
    tripCommand, activityCommand, recentCommand, searchCommand, pathCommand, syncCommand,
  ])

// A command that synced sends what it saved before the process ends (WishlistSync.swift).
let status = CommandLineTool.run(wishlist, arguments: Array(CommandLine.arguments.dropFirst()))
WishlistSync.finish()
exit(status)
