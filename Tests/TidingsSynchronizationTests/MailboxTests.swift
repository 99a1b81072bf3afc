import Testing
import TidingsSynchronization

@Suite struct MailboxTests {
    @Test func aValueDeliveredBeforeTheWaitIsKept() {
        let mailbox = Mailbox<Int>()
        #expect(mailbox.deliver(7))
        #expect(mailbox.wait() == 7)
    }

    @Test func aWaiterOnAnotherThreadGetsTheValue() throws {
        let mailbox = Mailbox<String>()
        let sender = try JoinableThread(name: "tidings.test.sender") { mailbox.deliver("sent") }
        defer { sender.join() }
        #expect(mailbox.wait(timeout: .seconds(30)) == "sent")
    }

    @Test func aTimedWaitEndsEmptyAndTheValueCanStillBeAwaited() {
        let mailbox = Mailbox<Int>()
        #expect(mailbox.wait(timeout: .milliseconds(50)) == nil)
        #expect(mailbox.wait(until: .now) == nil)
        mailbox.deliver(3)
        #expect(mailbox.wait() == 3)
    }

    @Test func afterTheReceiverLeavesTheSenderKeepsTheValue() {
        let mailbox = Mailbox<Int>()
        #expect(mailbox.wait(timeout: .milliseconds(10)) == nil)
        #expect(mailbox.abandon() == nil)
        #expect(!mailbox.deliver(5))
    }

    @Test func leavingAfterADeliveryHandsTheValueOver() {
        let mailbox = Mailbox<Int>()
        mailbox.deliver(9)
        #expect(mailbox.abandon() == 9)
    }
}
