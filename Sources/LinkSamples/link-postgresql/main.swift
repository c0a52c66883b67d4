// Links the model store on PostgreSQL (KuraPostgreSQL): scripts/check-linking reads which
// libraries this program needs.
import Foundation
import KuraPostgreSQL
import KuraStore

let configuration = ModelConfiguration.postgres(URL(fileURLWithPath: "/nonexistent"))
print(configuration.postgresSettings.maximumConnections)
