package flopspack

import (
	"bytes"
	"io"
	"strconv"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
func itoa(i int) string              { return strconv.Itoa(i) }
