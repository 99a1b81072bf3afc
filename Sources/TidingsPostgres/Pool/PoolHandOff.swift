import TidingsSynchronization

/// What the pool hands a waiting caller, in a type of its own: the
/// outcome's type names the waiter's (the mailbox), which could not name
/// itself.
struct PoolHandOff: Sendable {
    let outcome: PostgresClient.StateMachine.WaiterOutcome
}
