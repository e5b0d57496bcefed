//go:build !linux

package sdk

// setParentDeathSignal has no equivalent here; watchHost's ticker notices
// the parent's death.
func setParentDeathSignal() {}
