import Foundation
import Kura
import KuraCLI

// `wishlist`: seed §3's travel wish list on Kura's model store — trips with activities
// (cascade on delete), a live "recent trips" query, full-text search, and the activity sort
// order remembered in preferences.

let wishlist = Command(
  name: "wishlist",
  abstract: "Keeps a wish list of trips and their activities.",
  subcommands: [tripCommand, activityCommand, recentCommand, searchCommand])

CommandLineTool.main(wishlist)
