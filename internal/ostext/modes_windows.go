//go:build windows

package ostext

// KeepsModes says the file system keeps permission bits: Windows reports
// 0666 and 0777 whatever was asked, and keeps a user's files private by
// the profile's access lists instead.
const KeepsModes = false
