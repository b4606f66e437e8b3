/*
 * The size of an object id in hex: git's commits and trees and the
 * patch-ids (SHA-1, parsers/patchid.h), 40 hex digits and a NUL.  Every
 * buffer that holds one is this long.
 */
#ifndef UTIL_OID_H
#define UTIL_OID_H

#define OID_HEX_SIZE 41

#endif
