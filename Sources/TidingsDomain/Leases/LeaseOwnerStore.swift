import FoundationEssentials
package import TidingsPostgres

/// The SQL of lease owners' heartbeats (migration 0014): registering,
/// beating, reaping dead owners' leases and leaving.
package struct LeaseOwnerStore: Sendable {
    /// What an owner's leases are on.
    package enum Holds: String, Sendable {
        case deliveries
        case targets
        case pushes
    }

    /// What one reap freed.
    package struct Reaped: Sendable, Equatable {
        package var owners: [String] = []
        package var deliveries = 0
        package var targets = 0
        package var pushes = 0
    }

    let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    /// Adds (or renews) `owner`'s row, in `process`; its beat is now.
    /// Returns the live owners holding `holds`, this one included
    /// (`LiveOwners`).
    package func register(owner: String, holds: Holds, deadAfter: Duration, process: LeaseProcess) throws -> LiveOwners {
        try database.withConnection { connection in
            let row = try connection.query(
                """
                WITH registered AS (
                    INSERT INTO lease_owners (owner, holds, dead_after, process)
                    VALUES (\(owner), \(holds.rawValue), \(max(deadAfter, .zero))::interval, \(process.id))
                    ON CONFLICT (owner) DO UPDATE
                    SET heartbeat_at = now(), holds = EXCLUDED.holds, dead_after = EXCLUDED.dead_after,
                        process = EXCLUDED.process
                    RETURNING owner
                )
                SELECT (SELECT count(*) FROM lease_owners
                        WHERE holds = \(holds.rawValue) AND owner <> \(owner) AND heartbeat_at >= now() - dead_after) AS others
                FROM registered
                """
            ).first
            return LiveOwners(count: 1 + (try row?.decode("others", as: Int.self) ?? 0))
        }
    }

    /// Moves `owner`'s beat to now and counts the live owners holding
    /// `holds`, this one included. Nil when its row is gone: another process
    /// found it dead and freed its leases. An owner counts as live until it
    /// could be reaped (`dead_after`), so a replica that just died still
    /// takes its share for a few seconds: the shares err on the small side.
    package func beat(owner: String, holds: Holds) throws -> LiveOwners? {
        try database.withConnection { connection in
            // Shaped like `register`: a row only when the UPDATE found the
            // owner. The count reads the snapshot from before the UPDATE,
            // so this owner is left out of it and added after.
            let row = try connection.query(
                """
                WITH beat AS (UPDATE lease_owners SET heartbeat_at = now() WHERE owner = \(owner) RETURNING owner)
                SELECT (SELECT count(*) FROM lease_owners
                        WHERE holds = \(holds.rawValue) AND owner <> \(owner) AND heartbeat_at >= now() - dead_after) AS others
                FROM beat
                """
            ).first
            guard let row else { return nil }
            return LiveOwners(count: 1 + (try row.decode("others", as: Int.self)))
        }
    }

    /// Deletes the rows of owners whose last beat is older than their
    /// `dead_after` and frees their leases, in one transaction; dispatchers
    /// are woken when deliveries were freed. The owners of `process` (the
    /// reaper's own, `LeaseProcess`) are spared. Concurrent
    /// reapers take turns on the rows: each dead owner is reaped once.
    /// With nobody dead (the usual case) it is one DELETE that finds
    /// nothing in a tiny table.
    package func reapDead(sparing process: LeaseProcess) throws -> Reaped {
        try database.withTransaction { connection in
            var reaped = Reaped()
            var deliveryOwners: [String] = []
            var targetOwners: [String] = []
            var pushOwners: [String] = []
            for row in try connection.query(
                """
                DELETE FROM lease_owners
                WHERE heartbeat_at < now() - dead_after AND process IS DISTINCT FROM \(process.id)
                RETURNING owner, holds
                """)
            {
                let owner: String = try row.decode("owner")
                reaped.owners.append(owner)
                switch Holds(rawValue: try row.decode("holds")) {
                case .targets: targetOwners.append(owner)
                case .pushes: pushOwners.append(owner)
                case .deliveries, nil: deliveryOwners.append(owner)
                }
            }
            if !pushOwners.isEmpty {
                reaped.pushes = try PushStore.releaseLeases(of: pushOwners, on: connection)
            }
            if !deliveryOwners.isEmpty {
                reaped.deliveries = try DeliveryStore.releaseLeases(of: deliveryOwners, on: connection)
            }
            if !targetOwners.isEmpty {
                // No index on targets.lease_owner (claims stay HOT updates): a
                // scan of targets, once per dead poller.
                reaped.targets = try connection.execute(
                    """
                    UPDATE targets SET lease_owner = NULL, lease_until = NULL, lease_held = false
                    WHERE lease_owner = ANY(\(PostgresArray(targetOwners))::text[])
                    """)
            }
            return reaped
        }
    }

    /// Deletes `owner`'s row (shutdown, after releasing its leases).
    package func unregister(owner: String) throws {
        try database.withConnection { connection in
            _ = try connection.execute("DELETE FROM lease_owners WHERE owner = \(owner)")
        }
    }
}
