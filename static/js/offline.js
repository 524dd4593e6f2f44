// Offline deals (issue #15): filled in below.
