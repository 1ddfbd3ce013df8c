/** Query-string component decoding: '+' is a space, percent escapes are UTF-8. */
function decode(s) {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

function encode(s) {
  return encodeURIComponent(s).replace(/%20/g, '+');
}

module.exports = { decode, encode };
