package redact

// awsSecretKeys finds AWS secret access keys that stand alone, with no
// name beside them: 40 characters of base64 with upper and lower case and
// digits, and the entropy of random data. (A git commit id is 40 lower-case
// hexadecimal characters, and is not one.) It is a scan, not a regular
// expression: it runs on every text, with no keyword to look for first.
func awsSecretKeys(text string, spans []span) []span {
	isKey := func(c byte) bool {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '/' || c == '+'
	}
	for i := 0; i < len(text); {
		if !isKey(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isKey(text[j]) {
			j++
		}
		if j-i == 40 && (j == len(text) || text[j] != '=') && looksRandom(text[i:j]) {
			spans = append(spans, span{i, j})
		}
		i = j
	}
	return spans
}

// looksRandom says a key has upper and lower case letters and digits, and
// high entropy.
func looksRandom(s string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z':
			upper = true
		case 'a' <= c && c <= 'z':
			lower = true
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit && entropy(s) > 4.2
}
