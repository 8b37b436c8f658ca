package files

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page.
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the whole huge pages inside b with
// huge pages when it first touches them (where transparent huge pages
// are enabled "on advice"): a read into a new buffer of many megabytes
// then takes a few page faults instead of one per 4 KB page. It is
// advice: b's contents and Go's use of its memory are unchanged, and a
// failure is ignored.
func adviseHuge(b []byte) {
	if len(b) < 2*hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], syscall.MADV_HUGEPAGE)
}

// mapPopulate maps a file's pages when it is mapped.
const mapPopulate = syscall.MAP_POPULATE
