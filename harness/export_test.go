package harness

// ContainerFailure exposes containerFailure to the tests.
var ContainerFailure = containerFailure
