package hook

// anotherUsers says dir is another user's: on Windows each user's state
// is under their own %LOCALAPPDATA%, and no run writes into another's.
func anotherUsers(string) bool { return false }

// repairOwner has nothing to mend on Windows: no run writes into another
// user's state.
func repairOwner(string) bool { return false }
