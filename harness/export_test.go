package harness

// ContainerFailure exposes containerFailure to the tests.
var ContainerFailure = containerFailure

// SyncProgressEvery exposes how often a sync says how far it is.
var SyncProgressEvery = &syncProgressEvery
